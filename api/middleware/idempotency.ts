import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Sequelize, Transaction } from 'sequelize';
import { lockIdempotencyKey, storeIdempotentResponse, type IdempotentRequest, type StoredResponse } from '../../db/idempotency';
import { runInRequestTransaction, type RequestUnitHandle } from '../../db/request-transaction';
import type { Tenant } from '../../db/tenancy';
import type { CryptoBox } from '../../lib/crypto-box';
import { AppError, validationError } from '../../lib/errors';
import { pauseAtTestHook } from '../../lib/test-hooks';
import { sendError } from '../envelope';

const MAX_KEY_LENGTH = 255;

/** Key order must not change the fingerprint of a body. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * A streamed multipart body (a file upload) cannot be hashed before the handler reads it, so it counts as one
 * opaque body: under one key, a retried upload replays the first response whatever file it carries.
 */
function fingerprint(req: Request): string {
  const body = req.is('multipart/form-data') ? '<multipart/form-data>' : canonicalJson(req.body ?? null);
  return createHash('sha256').update(`${req.method} ${req.originalUrl}\n${body}`).digest('hex');
}

/** A 5xx or a 408 (an upload cut by its deadline) may succeed on retry: its effect is rolled back and nothing is stored. */
const isRetryable = (status: number) => status >= 500 || status === 408;

interface Settlement {
  sequelize: Sequelize;
  tx: Transaction;
  unit: RequestUnitHandle;
  tenant: Tenant;
  request: IdempotentRequest;
  box: CryptoBox;
}

/**
 * Holds back the response until it is stored in the request's transaction and that transaction has committed,
 * so the effect and its answer exist together or not at all. When they cannot commit, the client gets a
 * retryable `503` instead of an answer the database does not hold.
 */
function answerOnceCommitted(req: Request, res: Response, settlement: Settlement): void {
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  let answered = false;
  // A connection that closed before any answer (the client left mid-upload) leaves nothing to store.
  res.once('close', () => {
    if (!answered) settlement.unit.rollback().catch((err: unknown) => req.log.error({ err }, 'could not roll back an abandoned request'));
  });
  res.end = ((...args: unknown[]) => {
    answered = true;
    const [chunk] = args;
    const body = chunk === undefined || typeof chunk === 'function' ? '' : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk);
    const response: StoredResponse = { status: res.statusCode, body, contentType: (res.getHeader('content-type') as string | undefined) ?? null };
    settle(settlement, response).then(
      async () => {
        // Before the answer, as without a key: the workflows the request recorded are started when the client hears of them.
        await settlement.unit.runAfterCommit().catch((err: unknown) => req.log.warn({ err }, 'work after the commit failed; the relays will do what it left'));
        await pauseAtTestHook('idempotency:after-commit');
        end(...args);
      },
      (err: unknown) => {
        req.log.error({ err }, 'could not commit the request with its idempotent response');
        res.end = end as Response['end'];
        for (const name of res.getHeaderNames()) if (name !== 'x-request-id' && !name.startsWith('access-control-')) res.removeHeader(name);
        res.setHeader('Retry-After', '1');
        sendError(req, res, new AppError('SERVICE_UNAVAILABLE', 'The request could not be completed; nothing was changed. Retry with the same Idempotency-Key'));
      },
    );
    return res;
  }) as Response['end'];
}

async function settle({ sequelize, tx, unit, tenant, request, box }: Settlement, response: StoredResponse): Promise<void> {
  if (isRetryable(response.status)) {
    await unit.rollback();
    return;
  }
  try {
    await storeIdempotentResponse(sequelize, tx, tenant, request, { ...response, body: box.seal(response.body) });
    await pauseAtTestHook('idempotency:before-commit');
    await unit.commit();
  } catch (err) {
    await unit.rollback().catch(() => undefined);
    throw err;
  }
}

/** Whose keys a keyless route's key is among: the storefront's checkout creates answer the merchant's workspace. */
export type IdempotencyScope = (req: Request) => Promise<Tenant>;

/**
 * `Idempotency-Key` on mutating routes: the same key within 24 hours replays the stored status and body,
 * a different request under the same key is `409 IDEMPOTENCY_KEY_REUSED`, and a request whose twin is
 * still running is `409 IDEMPOTENCY_KEY_IN_USE`. The request runs in one transaction that holds the key and
 * commits its effect with its answer (docs/decisions/idempotency.md). Stored bodies are encrypted: some carry
 * one-time secrets.
 */
export function idempotency(sequelize: Sequelize, box: CryptoBox, scope?: IdempotencyScope): RequestHandler {
  return async (req, res, next) => {
    const key = req.headers['idempotency-key'];
    if (key === undefined || (!req.auth && !scope)) return next();
    if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY_LENGTH) {
      throw validationError(`Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters`, [{ field: 'Idempotency-Key', message: 'invalid' }]);
    }
    const tenant = scope ? await scope(req) : { accountId: req.auth!.accountId, environment: req.auth!.environment };
    const request = { key, method: req.method, path: req.originalUrl, hash: fingerprint(req) };
    const tx = await sequelize.transaction();
    let state;
    try {
      state = await lockIdempotencyKey(sequelize, tx, tenant, request);
    } catch (err) {
      await tx.rollback().catch(() => undefined);
      throw err;
    }
    if (state.kind !== 'free') await tx.rollback();
    switch (state.kind) {
      case 'mismatch':
        throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different request');
      case 'in_use':
        throw new AppError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still being processed; retry shortly');
      case 'replay':
        res.status(state.status).setHeader('Idempotent-Replayed', 'true');
        if (state.contentType) res.setHeader('Content-Type', state.contentType);
        res.end(box.open(state.body));
        return;
      case 'free':
        runInRequestTransaction(tx, (unit) => {
          answerOnceCommitted(req, res, { sequelize, tx, unit, tenant, request, box });
          next();
        });
    }
  };
}
