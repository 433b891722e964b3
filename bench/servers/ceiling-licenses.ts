import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Pool } from 'pg';
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import { counterOptions, LICENSE_KEY_LIMIT_PER_MINUTE, licenseKeyCounter, SharedRateLimiter } from '../../api/middleware/rate-limit';
import {
  ACTIVATION_STATE_SQL,
  INSERT_ACTIVATION_SQL,
  VALIDATE_LICENSE_SQL,
  LOCK_LICENSE_SQL,
  type LicenseValidationRow,
  type LockedLicense,
} from '../../db/licenses';
import { licenseStatus } from '../../domain/licenses';
import { serveBare, sendJson } from './bare';

/**
 * Ceiling for the public licence routes installed software calls, keyless:
 * `GET /api/v1/storefront/licenses/validate?key=&productId=` and `POST /api/v1/storefront/licenses/:key/activate`.
 * It does the route's database work in the route's round trips, rate limiting included, because the route's
 * limits are work the route cannot skip: the per-IP count (batched, as the route's SharedRateLimiter does far from
 * its limit) and the per-key count (60 a minute, so every request waits for the shared counter, one upsert), with
 * the route's own limiter class, settings and key hash on this server's pool. Then the route's own statements
 * (db/licenses.ts), each a named prepared statement as on the route: validate's one lookup, or activate's
 * transaction (START TRANSACTION, the licence under FOR UPDATE, its activation count and this instance's, the
 * activation INSERT unless the instance is active, COMMIT), and the same answer (the route's licenseStatus) in the
 * same envelope, with no framework, validation, logging or security headers. Env: PUBLIC_RATE_LIMIT_PER_MINUTE (the
 * full stack's).
 */
const PREFIX = '/api/v1/storefront/licenses/';

let limits: { perIp: SharedRateLimiter; perKey: SharedRateLimiter } | undefined;
function limitsOf(pool: Pool) {
  const counter = (prefix: string, points: number) =>
    new SharedRateLimiter(new RateLimiterPostgres({ storeClient: pool, storeType: 'pool', ...counterOptions(prefix, points) }));
  limits ??= { perIp: counter('ip', Number(process.env.PUBLIC_RATE_LIMIT_PER_MINUTE ?? 200)), perKey: counter('lic', LICENSE_KEY_LIMIT_PER_MINUTE) };
  return limits;
}

/** Both counts, as the route's chain takes them (per IP, then per key); a refusal is the route's 429. */
async function limited(pool: Pool, req: IncomingMessage, res: ServerResponse, key: string | undefined): Promise<boolean> {
  const { perIp, perKey } = limitsOf(pool);
  try {
    await perIp.consume(req.socket.remoteAddress ?? 'unknown');
    const remaining = await perKey.consume(licenseKeyCounter(key));
    res.setHeader('X-RateLimit-Limit', String(perKey.points));
    res.setHeader('X-RateLimit-Remaining', String(Math.max(0, remaining)));
    return false;
  } catch {
    sendJson(res, 429, { error: 'RATE_LIMITED' });
    return true;
  }
}

const envelope = (data: unknown) => ({ data, error: null, meta: { requestId: null, timestamp: new Date().toISOString() } });

async function readJson(req: IncomingMessage): Promise<{ instanceId: string }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

async function validate(pool: Pool, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const query = new URL(req.url ?? '/', 'http://ceiling').searchParams;
  const key = query.get('key') ?? undefined;
  if (await limited(pool, req, res, key)) return;
  const productId = query.get('productId') ?? undefined;
  const [row] = (await pool.query<LicenseValidationRow>({ name: 'ceiling-license-validate', text: VALIDATE_LICENSE_SQL, values: [key] })).rows;
  const status = row && licenseStatus(row);
  if (!row || status === 'revoked' || (productId !== undefined && row.productId !== productId)) {
    return sendJson(res, 200, envelope({ valid: false, key, productId: null, activations: null, maxActivations: null, expiresAt: null }));
  }
  sendJson(
    res,
    200,
    envelope({
      valid: status === 'active',
      key,
      productId: row.productId,
      activations: row.activations,
      maxActivations: row.maxActivations,
      expiresAt: row.expiresAt === null ? null : new Date(row.expiresAt).toISOString(),
    }),
  );
}

async function activate(pool: Pool, req: IncomingMessage, res: ServerResponse, key: string): Promise<void> {
  if (await limited(pool, req, res, key)) return;
  const { instanceId } = await readJson(req);
  const client = await pool.connect();
  try {
    await client.query('START TRANSACTION');
    const [license] = (await client.query<LockedLicense>({ name: 'ceiling-license-lock', text: LOCK_LICENSE_SQL, values: [key] })).rows;
    const status = license && licenseStatus(license);
    if (!license || status === 'revoked') {
      await client.query('ROLLBACK');
      return sendJson(res, 404, { error: 'RESOURCE_NOT_FOUND' });
    }
    if (status === 'expired') {
      await client.query('ROLLBACK');
      return sendJson(res, 422, { error: 'SUBSCRIPTION_INACTIVE' });
    }
    const query = { name: 'ceiling-license-state', text: ACTIVATION_STATE_SQL, values: [license.id, instanceId] };
    const { activations, active } = (await client.query<{ activations: number; active: boolean }>(query)).rows[0]!;
    const answer = { activated: true, key, maxActivations: license.maxActivations, instanceId };
    if (active) {
      await client.query('COMMIT');
      return sendJson(res, 200, envelope({ ...answer, activations, alreadyActive: true }));
    }
    if (activations >= license.maxActivations) {
      await client.query('ROLLBACK');
      return sendJson(res, 422, { error: 'ACTIVATION_LIMIT_REACHED' });
    }
    await client.query({ name: 'ceiling-license-insert', text: INSERT_ACTIVATION_SQL, values: [license.id, instanceId] });
    await client.query('COMMIT');
    sendJson(res, 200, envelope({ ...answer, activations: activations + 1, alreadyActive: false }));
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
}

serveBare({ 'GET /api/v1/storefront/licenses/validate': validate }, async (pool, req, res) => {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  const segments = path.startsWith(PREFIX) ? path.slice(PREFIX.length).split('/') : [];
  if (req.method !== 'POST' || segments.length !== 2 || segments[1] !== 'activate') return sendJson(res, 404, { error: 'no route' });
  return activate(pool, req, res, decodeURIComponent(segments[0] ?? ''));
});
