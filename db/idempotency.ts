import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { newId } from '../lib/ids';
import type { Tenant } from './tenancy';

export const IDEMPOTENCY_WINDOW_HOURS = 24;

export interface IdempotentRequest {
  key: string;
  method: string;
  path: string;
  hash: string;
}

export interface StoredResponse {
  status: number;
  body: string;
  contentType: string | null;
}

export type KeyState =
  /** Nobody holds the key and it stores no answer: the request runs, in the transaction that holds the key. */
  | { kind: 'free' }
  /** A twin runs right now (its transaction holds the key). */
  | { kind: 'in_use' }
  | { kind: 'mismatch' }
  | ({ kind: 'replay' } & StoredResponse);

/**
 * Takes the key for the life of `tx` (a transaction-scoped advisory lock, which PostgreSQL frees when the
 * transaction ends, a killed client's included), then reads what it stores. The key's row is only ever written
 * with the answer, in the transaction of the request's effect, so a stored answer means the effect committed and
 * no answer means it did not. A `processing` row (written by versions before the request's one transaction)
 * says nothing about its effect and is answered as in use until its window passes.
 */
export async function lockIdempotencyKey(sequelize: Sequelize, tx: Transaction, tenant: Tenant, request: IdempotentRequest): Promise<KeyState> {
  const [lock] = await sequelize.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock(hashtextextended(:lockKey, 0)) AS locked', {
    type: QueryTypes.SELECT,
    transaction: tx,
    replacements: { lockKey: `idempotency:${tenant.accountId}:${tenant.environment}:${request.key}` },
  });
  if (!lock?.locked) return { kind: 'in_use' };
  const [row] = await sequelize.query<{ state: string; hash: string; status: number | null; body: string | null; contentType: string | null }>(
    `SELECT state, request_hash AS hash, response_status AS status, response_body AS body, response_content_type AS "contentType"
       FROM idempotency_keys
      WHERE account_id = :accountId AND environment = :environment AND key = :key
        AND created_at >= now() - make_interval(hours => :windowHours)`,
    { type: QueryTypes.SELECT, transaction: tx, replacements: { ...tenant, key: request.key, windowHours: IDEMPOTENCY_WINDOW_HOURS } },
  );
  if (!row) return { kind: 'free' };
  if (row.hash !== request.hash) return { kind: 'mismatch' };
  if (row.state !== 'completed') return { kind: 'in_use' };
  return { kind: 'replay', status: row.status ?? 500, body: row.body ?? '', contentType: row.contentType };
}

/** Stores the answer in `tx`, the transaction of its effect (replacing a record whose window has passed). */
export async function storeIdempotentResponse(
  sequelize: Sequelize,
  tx: Transaction,
  tenant: Tenant,
  request: IdempotentRequest,
  response: StoredResponse,
): Promise<void> {
  await sequelize.query(
    `INSERT INTO idempotency_keys (id, account_id, environment, key, request_method, request_path, request_hash, state,
                                   response_status, response_body, response_content_type, created_at, completed_at)
     VALUES (:id, :accountId, :environment, :key, :method, :path, :hash, 'completed', :status, :body, :contentType, now(), now())
     ON CONFLICT (account_id, environment, key) DO UPDATE
       SET id = EXCLUDED.id, request_method = EXCLUDED.request_method, request_path = EXCLUDED.request_path,
           request_hash = EXCLUDED.request_hash, state = 'completed', response_status = EXCLUDED.response_status,
           response_body = EXCLUDED.response_body, response_content_type = EXCLUDED.response_content_type,
           created_at = now(), completed_at = now()`,
    {
      transaction: tx,
      replacements: { id: newId('idem'), ...tenant, ...request, ...response },
    },
  );
}
