import type { QueryInterface } from 'sequelize';

// Billing: customers, plans and their price tiers, and the test clocks a test-environment customer may live on.
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE TABLE test_clocks (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment = 'test'),
      name text,
      frozen_time timestamptz NOT NULL,
      status text NOT NULL DEFAULT 'ready' CHECK (status IN ('ready', 'advancing')),
      deleted_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX test_clocks_list ON test_clocks (account_id, environment, id DESC) WHERE deleted_at IS NULL;

    CREATE TABLE customers (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      email text,
      name text NOT NULL,
      metadata jsonb NOT NULL DEFAULT '{}',
      test_clock_id text REFERENCES test_clocks(id),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    -- Local mode dedupes on the e-mail exactly as given (the list filter is case-sensitive too).
    CREATE UNIQUE INDEX customers_email ON customers (account_id, environment, email) WHERE email IS NOT NULL;
    CREATE INDEX customers_list ON customers (account_id, environment, id DESC);

    CREATE TABLE plans (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      name text NOT NULL,
      description text,
      amount bigint NOT NULL CHECK (amount > 0),
      currency text NOT NULL,
      interval text NOT NULL CHECK (interval IN ('daily', 'weekly', 'monthly', 'yearly')),
      interval_count integer NOT NULL DEFAULT 1 CHECK (interval_count >= 1),
      trial_days integer CHECK (trial_days >= 0),
      active boolean NOT NULL DEFAULT true,
      metadata jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX plans_list ON plans (account_id, environment, id DESC);

    CREATE TABLE plan_prices (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      plan_id text NOT NULL REFERENCES plans(id),
      amount bigint NOT NULL CHECK (amount > 0),
      currency text NOT NULL,
      interval text NOT NULL CHECK (interval IN ('daily', 'weekly', 'monthly', 'yearly')),
      nickname text,
      active boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX plan_prices_plan ON plan_prices (plan_id, id);
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    DROP TABLE plan_prices;
    DROP TABLE plans;
    DROP TABLE customers;
    DROP TABLE test_clocks;
  `);
}
