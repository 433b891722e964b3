import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { METRICS_CONTENT_TYPE, renderMetrics } from '../lib/metrics';

export interface MetricsListener {
  port: number;
  close(): Promise<void>;
}

/**
 * The API's listener for Prometheus on METRICS_PORT, apart from PORT so the public never reaches it: GET (or HEAD)
 * /metrics in the text exposition format, 404 for any other path, 405 for another method.
 */
export function startMetricsListener(port: number): Promise<MetricsListener> {
  const server = createServer((req, res) => {
    const send = (status: number, body: string, contentType = 'text/plain; charset=utf-8') => {
      res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (new URL(req.url ?? '/', 'http://metrics').pathname !== '/metrics') return send(404, 'not found\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      return send(405, 'method not allowed\n');
    }
    renderMetrics().then(
      (text) => send(200, text, METRICS_CONTENT_TYPE),
      (err: unknown) => send(503, `metrics unavailable: ${err instanceof Error ? err.message : String(err)}\n`),
    );
  });
  // A scrape's connection is short; keep-alive sockets must not hold close() up.
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
