import type { QueryInterface } from 'sequelize';

// Portfolio items, testimonials and certifications: merchant-curated showcase records, deleted for real.
// product_id keeps the stored link even when the product is archived; reads hide links to archived
// products (document 1: "its productId becomes null"), and a hard delete of a product nulls the column.
// Length checks count characters (code points), as the API does.
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE TABLE portfolio_items (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      title text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 140),
      description text NOT NULL DEFAULT '' CHECK (char_length(description) <= 5000),
      images jsonb NOT NULL DEFAULT '[]'::jsonb CHECK (jsonb_typeof(images) = 'array' AND jsonb_array_length(images) <= 8),
      product_id text REFERENCES products(id) ON DELETE SET NULL,
      external_url text CHECK (char_length(external_url) <= 2048),
      client_name text CHECK (char_length(client_name) <= 140),
      completed_at timestamptz,
      sort_order integer NOT NULL DEFAULT 0 CHECK (sort_order >= 0),
      published boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    -- The list is the whole set in display order: served straight from this index.
    CREATE INDEX portfolio_items_list ON portfolio_items (account_id, environment, sort_order, created_at, id);
    -- Lets ON DELETE SET NULL find the linked rows without a scan.
    CREATE INDEX portfolio_items_product ON portfolio_items (product_id) WHERE product_id IS NOT NULL;

    CREATE TABLE testimonials (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      author_name text NOT NULL CHECK (char_length(author_name) BETWEEN 1 AND 140),
      author_role text CHECK (char_length(author_role) <= 140),
      quote text NOT NULL CHECK (char_length(quote) BETWEEN 1 AND 2000),
      rating smallint CHECK (rating BETWEEN 1 AND 5),
      avatar_url text CHECK (char_length(avatar_url) <= 2048),
      product_id text REFERENCES products(id) ON DELETE SET NULL,
      sort_order integer NOT NULL DEFAULT 0 CHECK (sort_order >= 0),
      published boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX testimonials_list ON testimonials (account_id, environment, sort_order, created_at, id);
    CREATE INDEX testimonials_product ON testimonials (product_id) WHERE product_id IS NOT NULL;

    CREATE TABLE certifications (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 140),
      issuer text NOT NULL CHECK (char_length(issuer) BETWEEN 1 AND 140),
      issued_at timestamptz,
      credential_url text CHECK (char_length(credential_url) <= 2048),
      image_url text CHECK (char_length(image_url) <= 2048),
      sort_order integer NOT NULL DEFAULT 0 CHECK (sort_order >= 0),
      published boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX certifications_list ON certifications (account_id, environment, sort_order, created_at, id);
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    DROP TABLE certifications;
    DROP TABLE testimonials;
    DROP TABLE portfolio_items;
  `);
}
