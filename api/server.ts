import type { Server } from 'node:http';
import type { Express } from 'express';
import type { Logger } from '../lib/logger';

/** Listens, and on SIGINT/SIGTERM stops accepting, lets in-flight requests finish, then runs cleanup. */
export function listen(app: Express, port: number, logger: Logger, cleanup: () => Promise<void>): Promise<Server> {
  return new Promise((resolve) => {
    const server = app.listen(port, () => resolve(server));
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
