import type { Sequelize } from 'sequelize';
import { appendLedgerEntry } from '../../db/ledger';
import { upsertBankAccount } from '../../db/payouts';
import { createWorkspaceService } from '../../domain/workspaces';
import type { CryptoBox } from '../../lib/crypto-box';
import { newId } from '../../lib/ids';

/** More than the bench could ever pay out one unit at a time. */
const SEEDED_AVAILABLE = 1_000_000_000_000;

/**
 * The payout workspace: a USD balance whose `available` no run exhausts (a ledger credit, so the summary equals the
 * ledger) and a configured bank account, so every create takes the same path, 201. Every create locks the one
 * balance row: the contention is the point of the scenario.
 */
export async function seedPayouts(sequelize: Sequelize, box: CryptoBox): Promise<{ accountId: string; secretKey: string }> {
  const ws = await createWorkspaceService({ sequelize }).create({ name: 'Bench payouts', slug: 'bench-payouts', plan: 'pro' });
  const tenant = { accountId: ws.accountId, environment: 'test' as const };
  await sequelize.transaction((tx) =>
    appendLedgerEntry(tx, tenant, { id: newId('txn'), type: 'checkout_credit', sourceId: 'bench-seed', currency: 'USD', pendingDelta: 0, availableDelta: SEEDED_AVAILABLE }),
  );
  await upsertBankAccount(sequelize, tenant, { bankCode: 'BENCH', bankName: 'Bench Bank', bankAccountNumberSealed: box.seal('0000111122223333'), bankAccountHolder: 'Bench Holder' });
  return { accountId: ws.accountId, secretKey: ws.secretKey };
}
