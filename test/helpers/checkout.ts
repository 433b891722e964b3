import { randomUUID } from 'node:crypto';
import { QueryTypes, type Sequelize } from 'sequelize';
import { http } from './context';

export const CHECKOUT_SESSIONS = '/api/v1/payment/checkout-sessions';

/** The base URL the test APIs build hosted URLs from. */
export const PUBLIC_BASE_URL = 'https://pay.example.test';

/**
 * The API's environment for checkout tests: its own task queue, so the sessions' workflows it starts wait there
 * untouched by any other file's worker (the checkout workflow's own tests run it).
 */
export const checkoutApiEnv = () => ({ TEMPORAL_TASK_QUEUE: `checkout-api-${randomUUID()}`, PUBLIC_BASE_URL });

export type CheckoutSessionDto = Record<string, unknown> & { id: string; status: string; amount: number; amountRefunded: number; lineItems: Record<string, unknown>[] };

/** The smallest valid create body. */
export const minimalSession = { amount: 150_000, currency: 'IDR', description: 'Design course', customerEmail: 'buyer@example.com' };

/** A session through the API; fails the test unless it is created. */
export async function createSession(baseUrl: string, key: string, body: Record<string, unknown> = {}): Promise<CheckoutSessionDto> {
  const res = await http<{ data: CheckoutSessionDto }>(baseUrl, 'POST', CHECKOUT_SESSIONS, { key, body: { ...minimalSession, ...body } });
  if (res.status !== 201) throw new Error(`checkout session create answered ${res.status}: ${res.text}`);
  return res.body.data;
}

const CHECKOUT_TABLES = ['checkout_sessions', 'checkout_refunds', 'balance_transactions', 'settlement_dues', 'balances', 'workflow_starts', 'audit_logs'] as const;

/** Every checkout-related row of a workspace (both environments), to prove that a refusal wrote nothing. */
export async function checkoutSnapshot(sequelize: Sequelize, accountId: string): Promise<Record<string, unknown[]>> {
  const result: Record<string, unknown[]> = {};
  for (const table of CHECKOUT_TABLES) {
    const rows = await sequelize.query<{ row: unknown }>(`SELECT to_jsonb(t) AS row FROM ${table} t WHERE account_id = :accountId`, {
      type: QueryTypes.SELECT,
      replacements: { accountId },
    });
    result[table] = rows.map((r) => r.row).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  }
  return result;
}

export interface SessionRow {
  status: string;
  payment_method: string | null;
  paid_at: Date | null;
  completed_at: Date | null;
  refunded_amount: string;
  click_id: string | null;
  browser_id: string | null;
}

export async function sessionRow(sequelize: Sequelize, id: string): Promise<SessionRow> {
  const [row] = await sequelize.query<SessionRow>('SELECT * FROM checkout_sessions WHERE id = :id', { type: QueryTypes.SELECT, replacements: { id } });
  if (!row) throw new Error(`no checkout session ${id}`);
  return row;
}
