import type { QueryInterface } from 'sequelize';

// Licences issued per purchase and their activations (one row per installed instance, so the count is exact).
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE TABLE licenses (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      -- Globally unique: the public routes find a licence, its workspace and environment by the key alone.
      key text NOT NULL UNIQUE,
      product_id text NOT NULL REFERENCES products(id),
      customer_id text,
      checkout_session_id text,
      -- The fulfillment line that issued the licence; with the session, what makes issuing idempotent.
      line_key text,
      max_activations integer NOT NULL CHECK (max_activations > 0),
      -- Reads answer 'expired' for an active licence past expires_at (docs/decisions/licenses.md).
      status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'expired', 'revoked')),
      expires_at timestamptz,
      revoked_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((status = 'revoked') = (revoked_at IS NOT NULL)),
      CHECK (checkout_session_id IS NULL OR line_key IS NOT NULL)
    );
    -- A retried fulfillment step finds the licence it issued, also under two concurrent tries.
    CREATE UNIQUE INDEX licenses_checkout_line ON licenses (account_id, environment, checkout_session_id, line_key)
      WHERE checkout_session_id IS NOT NULL;
    -- The merchant list: newest first.
    CREATE INDEX licenses_list ON licenses (account_id, environment, id DESC);

    CREATE TABLE license_activations (
      license_id text NOT NULL REFERENCES licenses(id),
      instance_id text NOT NULL,
      activated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (license_id, instance_id)
    );
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    DROP TABLE license_activations;
    DROP TABLE licenses;
  `);
}
