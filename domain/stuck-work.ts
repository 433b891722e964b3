import type { Sequelize } from 'sequelize';
import { failingDeliveries, failingEmails, overdueSettlements, pendingWorkflowStarts, unrelayedEvents } from '../db/operations';
import type { Config } from '../lib/config';
import { workflowIds } from '../workflows/messages';

/**
 * Work that has not gone through, for an operator (`npm run cli -- stuck`): durable starts not made yet, outbox
 * events not relayed yet, webhook deliveries and buyer e-mails failing, checkout credits the settlement sweep has
 * not released well after their due time. Each names the workflow that owns it (null
 * for an event: the outbox relay is not a workflow) and how long it has been waiting.
 */
export type StuckKind = 'start' | 'event' | 'delivery' | 'email' | 'settlement';

export interface StuckItem {
  kind: StuckKind;
  /** The row's id: `wfs_…`, `evt_…`, `evt_…:whe_…` (a delivery is the pair), `eml_…`, `cs_…` (a credit, by its session). */
  id: string;
  accountId: string;
  environment: string;
  workflowId: string | null;
  since: string;
  ageSeconds: number;
  /** What it is and its last error, in a line. */
  detail: string;
}

export const STUCK_KINDS: readonly StuckKind[] = ['start', 'event', 'delivery', 'email', 'settlement'];

/** How long past its due time a credit may wait for the sweep before it is listed: a few intervals, at least a minute. */
export const settlementGraceMs = (config: Pick<Config, 'SETTLEMENT_SWEEP_INTERVAL'>) => Math.max(60_000, 3 * config.SETTLEMENT_SWEEP_INTERVAL);

/** Up to `limit` of each kind, oldest first; `onKind` hears each kind as it is read (the CLI's progress). */
export async function findStuckWork(
  sequelize: Sequelize,
  config: Pick<Config, 'SETTLEMENT_DELAY' | 'TEST_SETTLEMENT_DELAY' | 'SETTLEMENT_SWEEP_INTERVAL'>,
  { limit, now = new Date(), onKind }: { limit: number; now?: Date; onKind?: (kind: StuckKind, found: number) => void },
): Promise<StuckItem[]> {
  const item = (kind: StuckKind, row: { accountId: string; environment: string; since: Date }, id: string, workflowId: string | null, detail: string): StuckItem => ({
    kind,
    id,
    accountId: row.accountId,
    environment: row.environment,
    workflowId,
    since: new Date(row.since).toISOString(),
    ageSeconds: Math.max(0, Math.round((now.getTime() - new Date(row.since).getTime()) / 1000)),
    detail,
  });
  const readers: Record<StuckKind, () => Promise<StuckItem[]>> = {
    start: async () =>
      (await pendingWorkflowStarts(sequelize, limit)).map((r) =>
        item('start', r, r.id, r.workflowId, `${r.workflowType} not started after ${r.attempts} tries${r.lastError ? `: ${r.lastError}` : ''}`),
      ),
    event: async () => (await unrelayedEvents(sequelize, limit)).map((r) => item('event', r, r.id, null, `${r.type} not fanned out`)),
    delivery: async () =>
      (await failingDeliveries(sequelize, limit)).map((r) =>
        item(
          'delivery',
          r,
          `${r.eventId}:${r.endpointId}`,
          workflowIds.webhookDelivery(r.eventId, r.endpointId),
          `${r.eventType}: attempt ${r.attempt} failed (${r.error ?? `HTTP ${r.statusCode}`}), next ${r.nextAttemptAt ? new Date(r.nextAttemptAt).toISOString() : 'none'}`,
        ),
      ),
    email: async () =>
      (await failingEmails(sequelize, limit)).map((r) => item('email', r, r.id, workflowIds.emailDelivery(r.id), `${r.kind}: ${r.attempts} attempts, last: ${r.lastError ?? ''}`)),
    settlement: async () =>
      (await overdueSettlements(sequelize, { test: config.TEST_SETTLEMENT_DELAY, live: config.SETTLEMENT_DELAY }, settlementGraceMs(config), limit)).map((r) =>
        item('settlement', r, r.sessionId, workflowIds.settlementSweep(), 'credit due and not settled: see the settlement-sweep schedule and the worker log'),
      ),
  };
  const found: StuckItem[] = [];
  for (const kind of STUCK_KINDS) {
    const items = await readers[kind]();
    onKind?.(kind, items.length);
    found.push(...items);
  }
  return found;
}
