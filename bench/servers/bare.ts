import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Pool } from 'pg';

/**
 * The skeleton of a ceiling server: node:http, one pg Pool, no framework. Each ceiling script supplies only
 * the handler for the measured route (whatever it does to PostgreSQL is the floor the full stack is held to).
 * Env: DATABASE_URL, PORT, POOL_SIZE.
 */
export type BareHandler = (pool: Pool, req: IncomingMessage, res: ServerResponse) => Promise<void>;

export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

/**
 * `routes` match `METHOD /path` exactly; `fallback`, when given, takes every other request (a ceiling with path
 * parameters parses the path itself).
 */
export function serveBare(routes: Record<string, BareHandler>, fallback?: BareHandler): void {
  const pool = new Pool({ connectionString: required('DATABASE_URL'), max: Number(process.env.POOL_SIZE ?? 10) });
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const handler = path === '/readyz' ? readyz : (routes[`${req.method} ${path}`] ?? fallback);
    if (!handler) {
      sendJson(res, 404, { error: 'no route' });
      return;
    }
    handler(pool, req, res).catch((err: unknown) => {
      console.error(err);
      if (!res.headersSent) sendJson(res, 500, { error: 'internal' });
      else res.end();
    });
  });
  server.keepAliveTimeout = 65_000;
  server.listen(Number(required('PORT')), '127.0.0.1');

  const stop = () => {
    server.close(() => {
      pool.end().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
    server.closeIdleConnections();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

const readyz: BareHandler = async (pool, _req, res) => {
  await pool.query('SELECT 1');
  sendJson(res, 200, { status: 'ready' });
};
