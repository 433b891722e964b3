import type { QueryInterface } from 'sequelize';

// Products, their files and the AI generation ledger. Money is an integer in whole currency units.
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE TABLE products (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      name text NOT NULL,
      slug text NOT NULL CHECK (slug ~ '^[a-z0-9-]{2,80}$'),
      description text,
      price bigint NOT NULL CHECK (price > 0),
      currency text NOT NULL CHECK (currency IN ('IDR', 'USD')),
      type text NOT NULL CHECK (type IN ('digital', 'subscription', 'physical')),
      thumbnail text,
      cover_images jsonb NOT NULL DEFAULT '[]'::jsonb,
      tags jsonb NOT NULL DEFAULT '[]'::jsonb,
      ai_generated boolean NOT NULL DEFAULT false,
      ai_status text CHECK (ai_status IN ('generating', 'completed', 'failed')),
      license_enabled boolean NOT NULL DEFAULT false,
      max_activations integer NOT NULL DEFAULT 1 CHECK (max_activations >= 1),
      weight integer,
      length integer,
      width integer,
      height integer,
      origin_area_id text,
      requires_insurance boolean NOT NULL DEFAULT false,
      gtin text,
      google_product_category text,
      brand text,
      feed_excluded boolean NOT NULL DEFAULT false,
      made_to_order boolean NOT NULL DEFAULT false,
      preorder_ships_from timestamptz,
      lead_time_text text,
      batch_hint text,
      published boolean NOT NULL DEFAULT false,
      archived boolean NOT NULL DEFAULT false,
      has_variants boolean NOT NULL DEFAULT false,
      metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (account_id, environment, slug)
    );
    -- The list: non-archived, newest first, keyset on id.
    CREATE INDEX products_list ON products (account_id, environment, id DESC) WHERE NOT archived;

    CREATE TABLE product_files (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      product_id text NOT NULL REFERENCES products(id),
      file_name text NOT NULL,
      file_size bigint NOT NULL CHECK (file_size > 0),
      mime_type text,
      -- <account>/<product>/<ULID>/<name>: unique by construction; the cleanup workflow looks rows up by it.
      storage_key text NOT NULL UNIQUE,
      -- 'upload' blobs live in our storage and are removed after delete; 'external' rows only point elsewhere.
      source text NOT NULL CHECK (source IN ('upload', 'external')),
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX product_files_product ON product_files (product_id, id);
    -- The storage quota sums file_size per workspace and environment.
    CREATE INDEX product_files_account_env ON product_files (account_id, environment);

    -- One row per AI generation run started: the monthly quota counts these.
    CREATE TABLE ai_generation_runs (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      product_id text NOT NULL REFERENCES products(id),
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX ai_generation_runs_month ON ai_generation_runs (account_id, environment, created_at);
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    DROP TABLE ai_generation_runs;
    DROP TABLE product_files;
    DROP TABLE products;
  `);
}
