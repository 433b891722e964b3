import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LossyProxy {
  baseUrl: string;
  /** The next `method path` request reaches the target and is acted on there; its answer never reaches the caller (the connection is cut). */
  loseNextAnswer(method: string, path: string): void;
  /** Answers lost so far. */
  readonly lost: number;
  close(): Promise<void>;
}

/**
 * A loopback HTTP proxy in front of `target` that can lose an answer after the target has acted: the failure a
 * timeout leaves behind, where the caller cannot tell whether its call took effect.
 */
export async function startLossyProxy(target: string): Promise<LossyProxy> {
  const toLose: string[] = [];
  let lost = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const upstream = request(new URL(req.url ?? '/', target), { method: req.method, headers: { ...req.headers, host: new URL(target).host } }, (answer) => {
        const at = toLose.indexOf(`${req.method} ${req.url}`);
        if (at >= 0) {
          toLose.splice(at, 1);
          answer.resume();
          answer.on('end', () => {
            lost += 1;
            req.socket.destroy();
          });
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      upstream.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    loseNextAnswer: (method, path) => void toLose.push(`${method} ${path}`),
    get lost() {
      return lost;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
