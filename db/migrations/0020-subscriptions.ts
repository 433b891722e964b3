import type { QueryInterface } from 'sequelize';

// Subscriptions and the charges their workflows collect (docs/decisions/billing.md, "Subscriptions").
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE TABLE subscriptions (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      customer_id text NOT NULL REFERENCES customers(id),
      plan_id text NOT NULL REFERENCES plans(id),
      -- The customer's clock, copied at creation (a customer never changes clock): the clock's advance finds its
      -- subscriptions through this column.
      test_clock_id text REFERENCES test_clocks(id),
      status text NOT NULL CHECK (status IN ('active', 'trialing', 'past_due', 'paused', 'canceled', 'unpaid')),
      -- Periods are counted from the anchor (trial end, or creation without a trial), so a monthly period that
      -- started on the 31st comes back to the 31st after a shorter month. cycle -1 is the trial.
      billing_anchor timestamptz NOT NULL,
      cycle integer NOT NULL CHECK (cycle >= -1),
      current_period_start timestamptz NOT NULL,
      current_period_end timestamptz NOT NULL,
      -- The plan's price for the current period, what a plan switch credits for the unused time.
      current_period_amount bigint NOT NULL CHECK (current_period_amount >= 0),
      trial_end timestamptz,
      cancel_at_period_end boolean NOT NULL DEFAULT false,
      canceled_at timestamptz,
      paused_at timestamptz,
      failed_payment_count integer NOT NULL DEFAULT 0 CHECK (failed_payment_count >= 0),
      -- Dunning: the failure the retries count from, how many retries ran, and when the next one is due.
      past_due_since timestamptz,
      retries_done integer NOT NULL DEFAULT 0 CHECK (retries_done >= 0),
      next_retry_at timestamptz,
      -- Proration lines of a downgrade, billed with the next period's invoice ([{description, quantity, unitAmount, amount}]).
      pending_invoice_items jsonb NOT NULL DEFAULT '[]',
      -- Deferred, like subscription_charges.invoice_id: a charge's rows are written first and its invoice last, so the
      -- invoice number's counter row (held to commit) is held for one insert (docs/decisions/billing.md).
      latest_invoice_id text REFERENCES invoices(id) DEFERRABLE INITIALLY DEFERRED,
      metadata jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((status = 'canceled') = (canceled_at IS NOT NULL)),
      CHECK ((status = 'paused') = (paused_at IS NOT NULL)),
      CHECK (current_period_end > current_period_start)
    );
    CREATE INDEX subscriptions_list ON subscriptions (account_id, environment, id DESC);
    CREATE INDEX subscriptions_by_status ON subscriptions (account_id, environment, status, id DESC);
    CREATE INDEX subscriptions_by_customer ON subscriptions (account_id, environment, customer_id, id DESC);
    CREATE INDEX subscriptions_on_clock ON subscriptions (test_clock_id) WHERE test_clock_id IS NOT NULL AND status <> 'canceled';

    -- One row per invoice a subscription collects (first period, each renewal, an upgrade's proration): the
    -- subscription's view of that charge, kept apart from the invoice (which is a billing record).
    CREATE TABLE subscription_charges (
      invoice_id text PRIMARY KEY REFERENCES invoices(id) DEFERRABLE INITIALLY DEFERRED,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      subscription_id text NOT NULL REFERENCES subscriptions(id),
      reason text NOT NULL CHECK (reason IN ('subscription_create', 'subscription_cycle', 'subscription_update')),
      -- pending until paid or due; failed once due unpaid (dunning); paid; void when the subscription is canceled.
      state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'failed', 'paid', 'void')),
      due_at timestamptz NOT NULL,
      resolved_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX subscription_charges_open ON subscription_charges (subscription_id, due_at) WHERE state IN ('pending', 'failed');
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    DROP TABLE subscription_charges;
    DROP TABLE subscriptions;
  `);
}
