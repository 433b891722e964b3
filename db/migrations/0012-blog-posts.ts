import type { QueryInterface } from 'sequelize';

// Blog posts: Markdown articles a merchant publishes on its storefront, deleted for real. The slug is unique
// per workspace and environment (the public URL names it); a published post always has its publication time.
// Length checks count characters (code points), as the API does.
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE TABLE blog_posts (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      title text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 200),
      slug text NOT NULL CHECK (slug ~ '^[a-z0-9-]{2,80}$'),
      body text NOT NULL DEFAULT '' CHECK (char_length(body) <= 50000),
      excerpt text CHECK (char_length(excerpt) <= 500),
      cover_image text CHECK (char_length(cover_image) <= 2048),
      published boolean NOT NULL DEFAULT false,
      published_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT blog_posts_slug UNIQUE (account_id, environment, slug),
      CONSTRAINT blog_posts_published_at CHECK (NOT published OR published_at IS NOT NULL)
    );
    -- Both lists (the merchant's and the storefront's) read in this order, newest publication first.
    CREATE INDEX blog_posts_list ON blog_posts (account_id, environment, published_at DESC, created_at DESC, id DESC);
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query('DROP TABLE blog_posts;');
}
