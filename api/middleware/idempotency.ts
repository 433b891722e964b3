import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Sequelize } from 'sequelize';
import { claimIdempotencyKey, completeIdempotencyKey, releaseIdempotencyKey } from '../../db/idempotency';
import type { CryptoBox } from '../../lib/crypto-box';
import { AppError, validationError } from '../../lib/errors';

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

/** Holds back the response until its record is stored, so a retry can never see a half-finished key. */
function persistResponseBeforeSending(res: Response, claimId: string, box: CryptoBox, onError: (err: unknown) => void): void {
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  res.end = ((...args: unknown[]) => {
    const [chunk] = args;
    const body = chunk === undefined || typeof chunk === 'function' ? '' : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk);
    const status = res.statusCode;
    const contentType = (res.getHeader('content-type') as string | undefined) ?? null;
    // A 5xx or a 408 (an upload cut by its deadline) may succeed on retry, so its key is released rather than pinned to the failure.
    const store = status >= 500 || status === 408 ? releaseIdempotencyKey(claimId) : completeIdempotencyKey(claimId, { status, body: box.seal(body), contentType });
    store.catch(onError).finally(() => end(...args));
    return res;
  }) as Response['end'];
}

/**
 * `Idempotency-Key` on mutating routes: the same key within 24 hours replays the stored status and body,
 * a different request under the same key is `409 IDEMPOTENCY_KEY_REUSED`, and a request whose twin is
 * still running is `409 IDEMPOTENCY_KEY_IN_USE`. Stored bodies are encrypted: some carry one-time secrets.
 */
export function idempotency(sequelize: Sequelize, box: CryptoBox): RequestHandler {
  return async (req, res, next) => {
    const key = req.headers['idempotency-key'];
    if (key === undefined || !req.auth) return next();
    if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY_LENGTH) {
      throw validationError(`Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters`, [{ field: 'Idempotency-Key', message: 'invalid' }]);
    }
    const tenant = { accountId: req.auth.accountId, environment: req.auth.environment };
    const claim = await claimIdempotencyKey(sequelize, tenant, { key, method: req.method, path: req.originalUrl, hash: fingerprint(req) });
    switch (claim.kind) {
      case 'mismatch':
        throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different request');
      case 'in_progress':
        throw new AppError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still being processed; retry shortly');
      case 'replay':
        res.status(claim.status).setHeader('Idempotent-Replayed', 'true');
        if (claim.contentType) res.setHeader('Content-Type', claim.contentType);
        res.end(box.open(claim.body));
        return;
      case 'claimed':
        persistResponseBeforeSending(res, claim.id, box, (err) => req.log.error({ err }, 'could not store idempotent response'));
        next();
    }
  };
}
