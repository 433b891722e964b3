import { encodeCursor } from '../../db/cursor';
import { toApiKeyDto, type ApiKeyRow } from '../../domain/api-keys/service';
import { serveBare, sendJson } from './bare';

/**
 * Ceiling for `GET /api/v1/account/api-keys`: the very list query the route runs (same index, same
 * LIMIT 51 = page of 50 + 1 to detect a next page), the same fields and a same-shaped JSON envelope, with
 * no authentication, no rate limiting, no framework. Env: BENCH_ACCOUNT_ID, BENCH_ENVIRONMENT.
 */
const accountId = process.env.BENCH_ACCOUNT_ID ?? '';
const environment = process.env.BENCH_ENVIRONMENT ?? 'test';
const LIMIT = 50;

// Same serialisation code as the route, so the two sides differ only in the stack around it.
serveBare({
  'GET /api/v1/account/api-keys': async (pool, _req, res) => {
    const { rows } = await pool.query<ApiKeyRow>({
      name: 'ceiling-api-keys-page',
      text: `SELECT id, name, prefix, last4, environment, access, created_at AS "createdAt",
              last_used_at AS "lastUsedAt", revoked_at AS "revokedAt"
         FROM api_keys WHERE account_id = $1 AND environment = $2 ORDER BY id DESC LIMIT $3`,
      values: [accountId, environment, LIMIT + 1],
    });
    const page = rows.slice(0, LIMIT);
    const last = rows.length > LIMIT ? page[page.length - 1] : undefined;
    sendJson(res, 200, {
      data: page.map(toApiKeyDto),
      error: null,
      meta: { requestId: null, timestamp: new Date().toISOString(), page: { nextCursor: last ? encodeCursor(last.id) : null } },
    });
  },
});
