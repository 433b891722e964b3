import { encodeCursor } from '../../db/cursor';
import { productReadStatement, type ProductReadRow } from '../../db/products';
import { createDatabase } from '../../db/connection';
import { toProductDto } from '../../domain/products';
import { serveBare, sendJson } from './bare';
import { lookUpKey } from './key-lookup';

/**
 * Ceiling for `GET /api/v1/storefront/products`: the route's database work in the route's round trips (the
 * key lookup, then the very page statement the route runs: LIMIT 51, each product's files aggregated in the
 * same row, a named prepared statement) and the same DTO code, with no framework, validation, rate limiting
 * or logging. Env: PUBLIC_BASE_URL.
 */
const baseUrl = process.env.PUBLIC_BASE_URL ?? 'http://localhost:3000';
const LIMIT = 50;

// The model registry supplies the column list; this Sequelize instance never opens a connection.
createDatabase({ url: process.env.DATABASE_URL ?? '' });

serveBare({
  'GET /api/v1/storefront/products': async (pool, req, res) => {
    const key = await lookUpKey(pool, req);
    if (!key) return sendJson(res, 401, { error: 'INVALID_API_KEY' });
    const { text, values } = productReadStatement(key, {}, LIMIT + 1);
    const { rows } = await pool.query<ProductReadRow>({ name: 'ceiling-products-page', text, values });
    const page = rows.slice(0, LIMIT);
    const last = rows.length > LIMIT ? page[page.length - 1] : undefined;
    const storefront = { workspaceSlug: key.slug, baseUrl };
    sendJson(res, 200, {
      data: page.map((row) => toProductDto(row, row.files, storefront)),
      error: null,
      meta: { requestId: null, timestamp: new Date().toISOString(), page: { nextCursor: last ? encodeCursor(last.id) : null } },
    });
  },
});
