import { QueryTypes, type Sequelize } from 'sequelize';
import { newId } from '../lib/ids';
import { IdempotencyKey } from './models';
import type { Tenant } from './tenancy';

export const IDEMPOTENCY_WINDOW_HOURS = 24;
// A claim older than this whose request never finished (the process died) may be taken over.
export const ABANDONED_CLAIM_MINUTES = 5;

export type Claim =
  | { kind: 'claimed'; id: string }
  | { kind: 'replay'; status: number; body: string; contentType: string | null }
  | { kind: 'mismatch' }
  | { kind: 'in_progress' };

export interface ClaimRequest {
  key: string;
  method: string;
  path: string;
  hash: string;
}

/**
 * Claims a key atomically: the INSERT wins for exactly one of any number of concurrent requests. An
 * expired record (past the window) or an abandoned claim is taken over in the same statement.
 */
export async function claimIdempotencyKey(sequelize: Sequelize, tenant: Tenant, request: ClaimRequest): Promise<Claim> {
  const id = newId('idem');
  const claimed = await sequelize.query<{ id: string }>(
    `INSERT INTO idempotency_keys (id, account_id, environment, key, request_method, request_path, request_hash, state, created_at)
     VALUES (:id, :accountId, :environment, :key, :method, :path, :hash, 'processing', now())
     ON CONFLICT (account_id, environment, key) DO UPDATE
       SET id = EXCLUDED.id, request_method = EXCLUDED.request_method, request_path = EXCLUDED.request_path,
           request_hash = EXCLUDED.request_hash, state = 'processing', response_status = NULL, response_body = NULL,
           response_content_type = NULL, created_at = now(), completed_at = NULL
       WHERE idempotency_keys.created_at < now() - make_interval(hours => :windowHours)
          OR (idempotency_keys.state = 'processing'
              AND idempotency_keys.request_hash = EXCLUDED.request_hash
              AND idempotency_keys.created_at < now() - make_interval(mins => :abandonedMinutes))
     RETURNING id`,
    {
      type: QueryTypes.SELECT,
      replacements: {
        id,
        ...tenant,
        ...request,
        windowHours: IDEMPOTENCY_WINDOW_HOURS,
        abandonedMinutes: ABANDONED_CLAIM_MINUTES,
      },
    },
  );
  if (claimed.length > 0) return { kind: 'claimed', id };

  const existing = await IdempotencyKey.findOne({ where: { ...tenant, key: request.key } });
  if (!existing) return claimIdempotencyKey(sequelize, tenant, request); // purged in between: claim afresh
  if (existing.requestHash !== request.hash) return { kind: 'mismatch' };
  if (existing.state === 'processing') return { kind: 'in_progress' };
  return {
    kind: 'replay',
    status: existing.responseStatus ?? 500,
    body: existing.responseBody ?? '',
    contentType: existing.responseContentType,
  };
}

export async function completeIdempotencyKey(
  id: string,
  response: { status: number; body: string; contentType: string | null },
): Promise<void> {
  await IdempotencyKey.update(
    {
      state: 'completed',
      responseStatus: response.status,
      responseBody: response.body,
      responseContentType: response.contentType,
      completedAt: new Date(),
    },
    { where: { id } },
  );
}

/** Frees a claim whose request failed in a way worth retrying (5xx), so the retry can run. */
export async function releaseIdempotencyKey(id: string): Promise<void> {
  await IdempotencyKey.destroy({ where: { id } });
}

