import type { QueryInterface } from 'sequelize';

// Plain SQL so constraints, partial indexes and checks read exactly as PostgreSQL will hold them.
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE TABLE accounts (
      id text PRIMARY KEY,
      name text NOT NULL,
      slug text UNIQUE CHECK (slug ~ '^[a-z0-9-]{2,80}$'),
      description text,
      brand_color text,
      brand_logo text,
      brand_banner text,
      plan text NOT NULL DEFAULT 'free' CHECK (plan IN ('free', 'starter', 'pro')),
      fulfillment_enabled boolean NOT NULL DEFAULT false,
      payment_enabled boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE api_keys (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      access text NOT NULL CHECK (access IN ('secret', 'publishable')),
      name text NOT NULL,
      prefix text NOT NULL,
      last4 text NOT NULL,
      key_hash text NOT NULL UNIQUE,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_used_at timestamptz,
      revoked_at timestamptz
    );
    CREATE INDEX api_keys_account_env_id ON api_keys (account_id, environment, id DESC);

    CREATE TABLE idempotency_keys (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      key text NOT NULL,
      request_method text NOT NULL,
      request_path text NOT NULL,
      request_hash text NOT NULL,
      state text NOT NULL CHECK (state IN ('processing', 'completed')),
      response_status integer,
      response_body text,
      response_content_type text,
      created_at timestamptz NOT NULL DEFAULT now(),
      completed_at timestamptz,
      UNIQUE (account_id, environment, key)
    );
    CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);

    CREATE TABLE events (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      type text NOT NULL,
      data jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      published_at timestamptz
    );
    CREATE INDEX events_unpublished ON events (created_at) WHERE published_at IS NULL;
    CREATE INDEX events_account_env_id ON events (account_id, environment, id DESC);

    CREATE TABLE audit_logs (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      action text NOT NULL,
      actor_api_key_id text,
      target_type text NOT NULL,
      target_id text NOT NULL,
      data jsonb NOT NULL DEFAULT '{}'::jsonb,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX audit_logs_account_env_id ON audit_logs (account_id, environment, id DESC);

    -- Shape required by rate-limiter-flexible's RateLimiterPostgres (created here, not by the library).
    CREATE TABLE rate_limits (
      key varchar(255) PRIMARY KEY,
      points integer NOT NULL DEFAULT 0,
      expire bigint
    );
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    DROP TABLE rate_limits;
    DROP TABLE audit_logs;
    DROP TABLE events;
    DROP TABLE idempotency_keys;
    DROP TABLE api_keys;
    DROP TABLE accounts;
  `);
}
