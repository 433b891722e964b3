import type { QueryInterface } from 'sequelize';

// Checkout: sessions and their refunds, the fulfillment steps that make each completion effect happen once,
// deliveries, and the balance ledger that each completed session credits (docs/decisions/checkout.md).
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE TABLE checkout_sessions (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'pending_review', 'completed', 'expired', 'failed')),
      -- Where it came from: the merchant API, a storefront buy-now or cart checkout, or an invoice.
      source text NOT NULL CHECK (source IN ('api', 'buy_now', 'cart', 'invoice')),
      amount bigint NOT NULL CHECK (amount > 0),
      currency text NOT NULL,
      description text NOT NULL,
      customer_email text NOT NULL,
      customer_name text,
      customer_phone text,
      customer_id text,
      payment_methods jsonb NOT NULL,
      payment_method text,
      success_url text,
      cancel_url text,
      -- Priced lines ([{lineKey, productId, variantId, name, quantity, unitAmount, amount}]), fixed at creation.
      line_items jsonb NOT NULL DEFAULT '[]',
      subtotal bigint NOT NULL CHECK (subtotal >= 0),
      discount_id text REFERENCES discount_codes(id),
      discount_code text,
      discount_amount bigint NOT NULL DEFAULT 0 CHECK (discount_amount >= 0),
      -- Set at fulfillment: false when the code ran out of uses between checkout and completion.
      discount_applied boolean,
      shipping_address jsonb,
      referral_code text,
      -- The two advertising-attribution cookie values, for server-side purchase reporting.
      click_id text,
      browser_id text,
      metadata jsonb NOT NULL DEFAULT '{}',
      refunded_amount bigint NOT NULL DEFAULT 0 CHECK (refunded_amount >= 0 AND refunded_amount <= amount),
      expires_at timestamptz NOT NULL,
      paid_at timestamptz,
      completed_at timestamptz,
      expired_at timestamptz,
      -- The fulfillment saga's progress, for the merchant's view; the workflow holds the truth.
      fulfilled_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((status = 'completed') = (completed_at IS NOT NULL)),
      CHECK (status IN ('open', 'expired') OR payment_method IS NOT NULL)
    );
    CREATE INDEX checkout_sessions_list ON checkout_sessions (account_id, environment, id DESC);
    CREATE INDEX checkout_sessions_status ON checkout_sessions (account_id, environment, status, id DESC);

    CREATE TABLE checkout_refunds (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      checkout_session_id text NOT NULL REFERENCES checkout_sessions(id),
      amount bigint NOT NULL CHECK (amount > 0),
      currency text NOT NULL,
      reason text,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX checkout_refunds_session ON checkout_refunds (checkout_session_id, id);

    -- One row per fulfillment effect of a session (the step name, or step:line): the effect is written in the
    -- same transaction as its row, so a retried or replayed step finds the row and writes nothing again.
    CREATE TABLE checkout_fulfilment_steps (
      checkout_session_id text NOT NULL REFERENCES checkout_sessions(id),
      step text NOT NULL,
      result jsonb,
      done_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (checkout_session_id, step)
    );

    CREATE TABLE deliveries (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      checkout_session_id text REFERENCES checkout_sessions(id),
      manual_order_id text,
      line_key text NOT NULL,
      product_id text NOT NULL REFERENCES products(id),
      customer_id text,
      kind text NOT NULL CHECK (kind IN ('download', 'license', 'shipment', 'manual')),
      file_id text,
      download_count integer CHECK (download_count >= 0),
      download_limit integer CHECK (download_limit > 0),
      license_key text,
      shipment_id text,
      metadata jsonb NOT NULL DEFAULT '{}',
      delivered_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((kind = 'download') = (download_count IS NOT NULL)),
      CHECK (kind <> 'license' OR license_key IS NOT NULL),
      CHECK (download_count IS NULL OR download_limit IS NULL OR download_count <= download_limit)
    );
    -- One delivery per line of a session (or of a manual order), also under retried fulfillment steps.
    CREATE UNIQUE INDEX deliveries_session_line ON deliveries (checkout_session_id, line_key) WHERE checkout_session_id IS NOT NULL;
    CREATE UNIQUE INDEX deliveries_order_line ON deliveries (manual_order_id, line_key) WHERE manual_order_id IS NOT NULL;
    CREATE INDEX deliveries_list ON deliveries (account_id, environment, id DESC);

    -- The append-only balance ledger: every change of a workspace's balance is one row, written in the
    -- transaction of what caused it. (type, source_id) is unique, so a retried step credits once.
    CREATE TABLE balance_transactions (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      type text NOT NULL CHECK (type IN ('checkout_credit', 'settlement', 'refund', 'payout', 'payout_return')),
      source_id text NOT NULL,
      checkout_session_id text REFERENCES checkout_sessions(id),
      currency text NOT NULL,
      pending_delta bigint NOT NULL DEFAULT 0,
      available_delta bigint NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (type, source_id)
    );
    CREATE INDEX balance_transactions_list ON balance_transactions (account_id, environment, currency, id);
    CREATE INDEX balance_transactions_session ON balance_transactions (checkout_session_id) WHERE checkout_session_id IS NOT NULL;

    -- The maintained sum of the ledger per (workspace, environment, currency), updated under its row lock.
    CREATE TABLE balances (
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      currency text NOT NULL,
      pending bigint NOT NULL DEFAULT 0,
      available bigint NOT NULL DEFAULT 0,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (account_id, environment, currency)
    );
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    DROP TABLE balances;
    DROP TABLE balance_transactions;
    DROP TABLE deliveries;
    DROP TABLE checkout_fulfilment_steps;
    DROP TABLE checkout_refunds;
    DROP TABLE checkout_sessions;
  `);
}
