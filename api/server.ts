import type { Server } from 'node:http';
import type { Express } from 'express';
import type { Logger } from '../lib/logger';
import { MAX_UPLOAD_DURATION_MS } from '../lib/storage';

/**
 * Node's whole-request deadline is one value for every route, so it is only the outer bound: the upload
 * allowance (its 5-minute default would cut a 500 MB upload on a link slower than ~1.7 MB/s). Each request's
 * own deadline is the app's (`REQUEST_TIMEOUT`, api/middleware/deadline.ts), which gives the hour to uploads
 * alone. Slow-header clients are cut by `headersTimeout` (60 s).
 */
const REQUEST_TIMEOUT_MS = MAX_UPLOAD_DURATION_MS;

/** Listens, and on SIGINT/SIGTERM stops accepting, lets in-flight requests finish, then runs cleanup. */
export function listen(app: Express, port: number, logger: Logger, cleanup: () => Promise<void>): Promise<Server> {
  return new Promise((resolve) => {
    const server = app.listen(port, () => resolve(server));
    server.requestTimeout = REQUEST_TIMEOUT_MS;
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal }, 'api stopping');
      server.close(() => {
        cleanup().then(
          () => process.exit(0),
          (err: unknown) => {
            logger.error({ err }, 'cleanup failed');
            process.exit(1);
          },
        );
      });
      server.closeIdleConnections();
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
}
