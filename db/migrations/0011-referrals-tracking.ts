import type { QueryInterface } from 'sequelize';

// Referral links with their counters, visitor attributions, storefront analytics events (bounded, purged after
// 30 days) and e-mail suppressions (abandoned-cart unsubscribes).
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE TABLE referral_links (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      code text NOT NULL,
      label text,
      target_product_id text REFERENCES products(id),
      active boolean NOT NULL DEFAULT true,
      clicks integer NOT NULL DEFAULT 0,
      captures integer NOT NULL DEFAULT 0,
      conversions integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX referral_links_code ON referral_links (account_id, environment, lower(code));
    CREATE INDEX referral_links_account_env_id ON referral_links (account_id, environment, id DESC);

    CREATE TABLE referral_captures (
      referral_link_id text NOT NULL REFERENCES referral_links(id) ON DELETE CASCADE,
      visitor_id text NOT NULL,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL,
      captured_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (referral_link_id, visitor_id)
    );
    CREATE INDEX referral_captures_visitor ON referral_captures (account_id, environment, visitor_id, captured_at DESC);

    CREATE TABLE storefront_events (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL,
      event text NOT NULL,
      visitor_id text,
      data jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX storefront_events_account_env_id ON storefront_events (account_id, environment, id DESC);
    CREATE INDEX storefront_events_created ON storefront_events (created_at);

    CREATE TABLE email_suppressions (
      account_id text NOT NULL REFERENCES accounts(id),
      email text NOT NULL CHECK (email = lower(email)),
      reason text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (account_id, email, reason)
    );
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    DROP TABLE email_suppressions;
    DROP TABLE storefront_events;
    DROP TABLE referral_captures;
    DROP TABLE referral_links;
  `);
}
