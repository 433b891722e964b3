import { serveBare, sendJson } from './bare';

/**
 * Ceiling for `GET /api/v1/account/api-keys`: the very list query the route runs (same index, same
 * LIMIT 51 = page of 50 + 1 to detect a next page), the same fields and a same-shaped JSON envelope, with
 * no authentication, no rate limiting, no framework. Env: BENCH_ACCOUNT_ID, BENCH_ENVIRONMENT.
 */
const accountId = process.env.BENCH_ACCOUNT_ID ?? '';
const environment = process.env.BENCH_ENVIRONMENT ?? 'test';
const LIMIT = 50;

interface Row {
  id: string;
  name: string;
  prefix: string;
  last4: string;
  environment: string;
  access: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

serveBare({
  'GET /api/v1/account/api-keys': async (pool, _req, res) => {
    const { rows } = await pool.query<Row>(
      `SELECT id, name, prefix, last4, environment, access, created_at, last_used_at, revoked_at
         FROM api_keys WHERE account_id = $1 AND environment = $2 ORDER BY id DESC LIMIT $3`,
      [accountId, environment, LIMIT + 1],
    );
    const page = rows.slice(0, LIMIT);
    const last = rows.length > LIMIT ? page[page.length - 1] : undefined;
    sendJson(res, 200, {
      data: page.map((r) => ({
        id: r.id,
        name: r.name,
        prefix: r.prefix,
        last4: r.last4,
        environment: r.environment,
        access: r.access,
        createdAt: r.created_at.toISOString(),
        lastUsedAt: r.last_used_at ? r.last_used_at.toISOString() : null,
        revokedAt: r.revoked_at ? r.revoked_at.toISOString() : null,
      })),
      error: null,
      meta: { requestId: null, timestamp: new Date().toISOString(), page: { nextCursor: last ? Buffer.from(`v1:${last.id}`).toString('base64url') : null } },
    });
  },
});
