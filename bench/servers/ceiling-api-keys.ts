import { encodeCursor } from '../../db/cursor';
import { ApiKey } from '../../db/models';
import { listPageStatement } from '../../db/pagination';
import { createDatabase } from '../../db/connection';
import { toApiKeyDto } from '../../domain/api-keys';
import { serveBare, sendJson } from './bare';
import { lookUpKey } from './key-lookup';

/**
 * Ceiling for `GET /api/v1/account/api-keys`: the route's database work in the route's round trips (the key
 * lookup, then the very page statement listPage builds, both named prepared statements) and the same DTO
 * code, with no framework, validation, rate limiting or logging.
 */
const LIMIT = 50;

// The model registry supplies the column list; this Sequelize instance never opens a connection.
createDatabase({ url: process.env.DATABASE_URL ?? '' });

serveBare({
  'GET /api/v1/account/api-keys': async (pool, req, res) => {
    const key = await lookUpKey(pool, req);
    if (!key) return sendJson(res, 401, { error: 'INVALID_API_KEY' });
    const { text, values } = listPageStatement(ApiKey, { tenant: key, page: { limit: LIMIT }, idPrefix: 'key' });
    const { rows } = await pool.query<ApiKey>({ name: 'ceiling-api-keys-page', text, values });
    const page = rows.slice(0, LIMIT);
    const last = rows.length > LIMIT ? page[page.length - 1] : undefined;
    sendJson(res, 200, {
      data: page.map(toApiKeyDto),
      error: null,
      meta: { requestId: null, timestamp: new Date().toISOString(), page: { nextCursor: last ? encodeCursor(last.id) : null } },
    });
  },
});
