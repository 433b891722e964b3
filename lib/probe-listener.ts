import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProbeAnswer {
  status: number;
  body: string;
  contentType?: string;
}

/** One GET path of a probe listener. */
export type ProbeRoute = () => ProbeAnswer | Promise<ProbeAnswer>;

export interface ProbeListener {
  port: number;
  close(): Promise<void>;
}

export function jsonAnswer(status: number, body: unknown): ProbeAnswer {
  return { status, body: JSON.stringify(body), contentType: 'application/json; charset=utf-8' };
}

/**
 * An HTTP listener for orchestrators and scrapers, apart from the public port: a fixed table of GET routes and
 * nothing else (the worker's /healthz, /readyz and /metrics on WORKER_HEALTH_PORT; the API's /metrics on
 * METRICS_PORT). An unknown path is 404, another method 405, and a route that throws answers 503 (a probe must get
 * an answer, never a hung or reset connection).
 */
export function startProbeListener(port: number, routes: Record<string, ProbeRoute>): Promise<ProbeListener> {
  const server: Server = createServer((req, res) => {
    const route = routes[new URL(req.url ?? '/', 'http://probe.invalid').pathname];
    const send = ({ status, body, contentType }: ProbeAnswer) => {
      res.writeHead(status, { 'content-type': contentType ?? 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (!route) return send(jsonAnswer(404, { error: 'not found' }));
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      return send(jsonAnswer(405, { error: 'method not allowed' }));
    }
    Promise.resolve()
      .then(route)
      .then(send, (err: unknown) => send(jsonAnswer(503, { status: 'error', error: err instanceof Error ? err.message : String(err) })));
  });
  // A probe's connection is short; keep-alive sockets must not hold close() up.
  server.keepAliveTimeout = 1_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => {
      server.off('error', reject);
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
