import type { IncomingMessage } from 'node:http';
import type { Pool } from 'pg';
import { ACTIVE_KEY_SQL, type ActiveKeyRow } from '../../db/api-keys';
import { hashKey, hashesEqual } from '../../lib/api-key-secrets';

/**
 * The key lookup of the ceilings, as the route does it: hash the bearer value, then the route's own
 * statement (api/middleware/auth.ts → findActiveKey). `BENCH_KEY_CACHE_MS` (set by bench/scenarios.ts):
 * 0 queries on every request, as the route does today; above 0 keeps each found key in an in-process Map
 * for that long, for when the route caches keys (its invalidation costs nothing here: no key changes while
 * the bench runs). Without a valid key the ceiling answers 401, so both sides serve the same requests.
 */
const cacheMs = Number(process.env.BENCH_KEY_CACHE_MS ?? 0);
const cache = new Map<string, { row: ActiveKeyRow; until: number }>();

export async function lookUpKey(pool: Pool, req: IncomingMessage): Promise<ActiveKeyRow | null> {
  const header = req.headers.authorization;
  if (!header?.startsWith('Bearer ')) return null;
  const hash = hashKey(header.slice('Bearer '.length));
  const cached = cache.get(hash);
  if (cached && cached.until > Date.now()) return cached.row;
  const { rows } = await pool.query<ActiveKeyRow>({ name: 'ceiling-active-key', text: ACTIVE_KEY_SQL, values: [hash] });
  const row = rows[0];
  if (!row || !hashesEqual(row.keyHash, hash)) return null;
  if (cacheMs > 0) cache.set(hash, { row, until: Date.now() + cacheMs });
  return row;
}
