import type { QueryInterface } from 'sequelize';

// Settlement by a due-time sweep (docs/decisions/payouts.md): one row per checkout credit not yet settled, written
// in the credit's transaction with the credit's own ledger time and deleted in the settling transaction, so the
// sweep reads only what is still to settle (by environment and credit time) instead of scanning every credit ever
// made. Credits recorded before this migration and not yet settled are carried over; those whose refunds took
// everything are dropped by the first sweep that reaches them.
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE TABLE settlement_dues (
      checkout_session_id text PRIMARY KEY REFERENCES checkout_sessions(id),
      account_id text NOT NULL REFERENCES accounts(id),
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      credited_at timestamptz NOT NULL
    );
    CREATE INDEX settlement_dues_due ON settlement_dues (environment, credited_at);
  `);
  await qi.sequelize.query(MARK_UNSETTLED_CREDITS);
}

/** Exported for its test (test/workflows/settlement.test.ts). */
export const MARK_UNSETTLED_CREDITS = `
  INSERT INTO settlement_dues (checkout_session_id, account_id, environment, credited_at)
  SELECT credit.checkout_session_id, credit.account_id, credit.environment, credit.created_at
    FROM balance_transactions credit
   WHERE credit.type = 'checkout_credit' AND credit.checkout_session_id IS NOT NULL
     AND NOT EXISTS (SELECT 1 FROM balance_transactions s WHERE s.type = 'settlement' AND s.source_id = credit.checkout_session_id)
  ON CONFLICT (checkout_session_id) DO NOTHING`;

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query('DROP TABLE settlement_dues');
}
