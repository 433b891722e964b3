import type { QueryInterface } from 'sequelize';

// Billing: customers, plans and their price tiers, the test clocks a test-environment customer may live on,
// invoices and their gap-free numbering, and the workspace's billing settings.
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

    -- Billing settings of a workspace: the tax rate its invoices add (basis points of the subtotal) and what
    -- dunning does after the final failed retry (docs/decisions/billing.md).
    ALTER TABLE accounts
      ADD COLUMN invoice_tax_rate_bps integer NOT NULL DEFAULT 0 CHECK (invoice_tax_rate_bps BETWEEN 0 AND 10000),
      ADD COLUMN dunning_final_action text NOT NULL DEFAULT 'cancel' CHECK (dunning_final_action IN ('cancel', 'leave_unpaid'));

    -- Gap-free numbering per workspace, environment and series (invoices): the row is locked by the UPDATE that
    -- takes a number, in the transaction that writes the numbered row, so a rollback returns the number.
    CREATE TABLE number_sequences (
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      series text NOT NULL,
      last_value bigint NOT NULL DEFAULT 0,
      PRIMARY KEY (account_id, environment, series)
    );

    CREATE TABLE invoices (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      customer_id text REFERENCES customers(id),
      subscription_id text,
      number text NOT NULL,
      status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'open', 'paid', 'uncollectible', 'void')),
      currency text NOT NULL,
      -- [{description, quantity, unitAmount, amount}] in the smallest unit.
      line_items jsonb NOT NULL DEFAULT '[]',
      subtotal bigint NOT NULL,
      tax_amount bigint NOT NULL DEFAULT 0 CHECK (tax_amount >= 0),
      amount bigint NOT NULL,
      memo text,
      period_start timestamptz,
      period_end timestamptz,
      -- The checkout session whose hosted page collects it in local mode.
      checkout_session_id text REFERENCES checkout_sessions(id),
      issued_at timestamptz NOT NULL,
      due_at timestamptz,
      paid_at timestamptz,
      voided_at timestamptz,
      metadata jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (account_id, environment, number),
      CHECK (amount = subtotal + tax_amount),
      CHECK ((status = 'paid') = (paid_at IS NOT NULL))
    );
    CREATE INDEX invoices_list ON invoices (account_id, environment, id DESC);
    CREATE INDEX invoices_subscription ON invoices (subscription_id, id DESC) WHERE subscription_id IS NOT NULL;
    CREATE INDEX invoices_customer ON invoices (customer_id, id DESC) WHERE customer_id IS NOT NULL;
    CREATE UNIQUE INDEX invoices_checkout_session ON invoices (checkout_session_id) WHERE checkout_session_id IS NOT NULL;
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    DROP TABLE invoices;
    DROP TABLE number_sequences;
    ALTER TABLE accounts DROP COLUMN invoice_tax_rate_bps, DROP COLUMN dunning_final_action;
    DROP TABLE plan_prices;
    DROP TABLE plans;
    DROP TABLE customers;
    DROP TABLE test_clocks;
  `);
}
