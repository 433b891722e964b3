import type { QueryInterface } from 'sequelize';

// The payment module's provider mode (docs/decisions/payment-module.md): which backend each session, payout and
// customer belongs to (fixed at creation, so switching the module never strands one), the provider's ids we
// find them by when a callback arrives, and the provider events received (replays change nothing).
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    -- One row per provider event applied or acknowledged, keyed by the provider's event id within the provider
    -- account (one per environment). Written in the transaction that applies the event.
    CREATE TABLE payment_provider_events (
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      event_id text NOT NULL,
      kind text NOT NULL,
      -- The workspace the event was applied to, found from our own stored provider ids; null when none matched.
      account_id text REFERENCES accounts(id),
      outcome text NOT NULL,
      occurred_at timestamptz NOT NULL,
      received_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (environment, event_id)
    );
    CREATE INDEX payment_provider_events_received ON payment_provider_events (received_at);

    ALTER TABLE checkout_sessions
      ADD COLUMN backend text NOT NULL DEFAULT 'local' CHECK (backend IN ('local', 'provider')),
      ADD COLUMN provider_invoice_id text,
      ADD COLUMN provider_invoice_url text;
    CREATE UNIQUE INDEX checkout_sessions_provider_invoice ON checkout_sessions (environment, provider_invoice_id) WHERE provider_invoice_id IS NOT NULL;

    ALTER TABLE checkout_refunds
      ADD COLUMN provider_refund_id text,
      ADD COLUMN status text NOT NULL DEFAULT 'succeeded' CHECK (status IN ('pending', 'succeeded', 'failed'));
    CREATE UNIQUE INDEX checkout_refunds_provider_refund ON checkout_refunds (environment, provider_refund_id) WHERE provider_refund_id IS NOT NULL;

    ALTER TABLE payouts ADD COLUMN provider_disbursement_id text;
    CREATE UNIQUE INDEX payouts_provider_disbursement ON payouts (environment, provider_disbursement_id) WHERE provider_disbursement_id IS NOT NULL;

    -- Provider-mode customers (cus_) live at the provider too; e-mail uniqueness is local mode's rule only.
    ALTER TABLE customers ADD COLUMN provider_customer_id text;
    DROP INDEX customers_email;
    CREATE UNIQUE INDEX customers_email ON customers (account_id, environment, email) WHERE email IS NOT NULL AND id LIKE 'cust\\_%';
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    DROP INDEX customers_email;
    CREATE UNIQUE INDEX customers_email ON customers (account_id, environment, email) WHERE email IS NOT NULL;
    ALTER TABLE customers DROP COLUMN provider_customer_id;
    ALTER TABLE payouts DROP COLUMN provider_disbursement_id;
    ALTER TABLE checkout_refunds DROP COLUMN provider_refund_id, DROP COLUMN status;
    ALTER TABLE checkout_sessions DROP COLUMN backend, DROP COLUMN provider_invoice_id, DROP COLUMN provider_invoice_url;
    DROP TABLE payment_provider_events;
  `);
}
