import { encodeCursor } from '../../db/cursor';
import { productReadSql, type FileRow } from '../../db/products';
import { toProductDto } from '../../domain/products/dto';
import { createDatabase } from '../../db/connection';
import { serveBare, sendJson } from './bare';

/**
 * Ceiling for `GET /api/v1/storefront/products`: the very statement the route runs (one indexed page read,
 * LIMIT 51, each product's files aggregated in the same row) and the same DTO code, with no authentication,
 * no rate limiting, no framework. Env: BENCH_ACCOUNT_ID, BENCH_ENVIRONMENT, BENCH_WORKSPACE_SLUG, PUBLIC_BASE_URL.
 */
const accountId = process.env.BENCH_ACCOUNT_ID ?? '';
const environment = process.env.BENCH_ENVIRONMENT ?? 'test';
const storefront = { workspaceSlug: process.env.BENCH_WORKSPACE_SLUG ?? null, baseUrl: process.env.PUBLIC_BASE_URL ?? 'http://localhost:3000' };
const LIMIT = 50;

// The model registry supplies the column list; this Sequelize instance never opens a connection.
createDatabase({ url: process.env.DATABASE_URL ?? '' });
const replacements = ['accountId', 'environment', 'limit'];
// Sequelize's named replacements as pg's positional parameters (`::json` casts are left alone).
const sql = productReadSql({}).replace(/(?<!:):([A-Za-z]+)/g, (_m, name: string) => `$${replacements.indexOf(name) + 1}`);

serveBare({
  'GET /api/v1/storefront/products': async (pool, _req, res) => {
    const { rows } = await pool.query<Parameters<typeof toProductDto>[0] & { files: FileRow[] }>({ name: 'ceiling-products-page', text: sql }, [accountId, environment, LIMIT + 1]);
    const page = rows.slice(0, LIMIT);
    const last = rows.length > LIMIT ? page[page.length - 1] : undefined;
    sendJson(res, 200, {
      data: page.map((row) => toProductDto(row, row.files, storefront)),
      error: null,
      meta: { requestId: null, timestamp: new Date().toISOString(), page: { nextCursor: last ? encodeCursor(last.id) : null } },
    });
  },
});
