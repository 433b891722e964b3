import type { QueryInterface } from 'sequelize';

// Payouts: the bank account each environment pays out to, and the payouts themselves. Their money moves only as
// rows of the balance ledger of 0015 (docs/decisions/payouts.md).
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    -- One per workspace and environment (test payouts never go to the live account), replaced whole by each PATCH.
    CREATE TABLE payout_bank_accounts (
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      bank_code text,
      bank_name text NOT NULL,
      -- AES-256-GCM (lib/crypto-box) of the account number: read back for responses and payout snapshots, never stored in clear.
      bank_account_number_sealed text NOT NULL,
      bank_account_holder text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (account_id, environment)
    );

    CREATE TABLE payouts (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      -- Who moves it: the merchant's mark routes (manual) or the payment provider's callbacks, fixed at creation.
      backend text NOT NULL DEFAULT 'manual' CHECK (backend IN ('manual', 'provider')),
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'in_transit', 'paid', 'failed', 'cancelled')),
      amount bigint NOT NULL CHECK (amount > 0),
      currency text NOT NULL,
      -- The bank account as it was at request time (the configured one, or the request's one-off override).
      bank_code text,
      bank_name text NOT NULL,
      bank_account_number_sealed text NOT NULL,
      bank_account_holder text NOT NULL,
      reference text,
      failure_reason text,
      note text,
      in_transit_at timestamptz,
      paid_at timestamptz,
      failed_at timestamptz,
      cancelled_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      -- Each state carries its stamp, and only the states that passed through in_transit carry inTransitAt.
      CHECK ((status = 'paid') = (paid_at IS NOT NULL)),
      CHECK ((status = 'failed') = (failed_at IS NOT NULL)),
      CHECK ((status = 'failed') = (failure_reason IS NOT NULL)),
      CHECK ((status = 'cancelled') = (cancelled_at IS NOT NULL)),
      CHECK ((status IN ('in_transit', 'paid', 'failed')) = (in_transit_at IS NOT NULL))
    );
    CREATE INDEX payouts_list ON payouts (account_id, environment, id DESC);
    CREATE INDEX payouts_status ON payouts (account_id, environment, status, id DESC);
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    DROP TABLE payouts;
    DROP TABLE payout_bank_accounts;
  `);
}
