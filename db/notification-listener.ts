import { Client as PgClient } from 'pg';
import type { Logger } from '../lib/logger';

export interface NotificationListenerOptions {
  /** LISTEN needs its own connection, outside the query pool. */
  databaseUrl: string;
  channel: string;
  /** Shown in pg_stat_activity. */
  applicationName: string;
  logger: Logger;
  onNotification(payload: string): void;
  /** LISTEN is in effect: every notification committed from now on arrives. */
  onUp(): void;
  /** The connection is gone: notifications may be missed until the next onUp. */
  onDown(): void;
  /** First reconnect delay, doubled per failed attempt up to maxReconnectDelayMs. */
  reconnectDelayMs?: number;
  maxReconnectDelayMs?: number;
  /** A connection that stops answering (no error, no close) counts as lost after one missed heartbeat. */
  heartbeatMs?: number;
}

export interface NotificationListener {
  /** The listening backend's pid (pg_stat_activity.pid) while up, else null. */
  readonly backendPid: number | null;
  stop(): Promise<void>;
}

/** One LISTEN connection kept up with reconnects and backoff, reporting each loss and each recovery. */
export function startNotificationListener(options: NotificationListenerOptions): NotificationListener {
  const { logger, channel } = options;
  const firstDelay = options.reconnectDelayMs ?? 100;
  const maxDelay = options.maxReconnectDelayMs ?? 5_000;
  const heartbeatMs = options.heartbeatMs ?? 5_000;

  let stopped = false;
  let up: { client: PgClient; pid: number } | null = null;
  let connecting: Promise<void> | null = null;
  let reconnectTimer: NodeJS.Timeout | null = null;
  let heartbeatTimer: NodeJS.Timeout | null = null;
  let failures = 0;

  const quietEnd = (client: PgClient) => {
    client.removeAllListeners();
    // A late socket error on a client being dropped must not become an unhandled 'error' event.
    client.on('error', () => undefined);
    return client.end().catch(() => undefined);
  };

  function connect(): void {
    reconnectTimer = null;
    const client = new PgClient({
      connectionString: options.databaseUrl,
      application_name: options.applicationName,
      keepAlive: true,
      connectionTimeoutMillis: 10_000,
    });
    let lost = false;
    const lose = (err?: unknown) => {
      if (lost) return;
      lost = true;
      void quietEnd(client);
      if (up?.client === client) {
        up = null;
        if (heartbeatTimer) clearInterval(heartbeatTimer);
        options.onDown();
      }
      if (stopped) return;
      const delay = Math.min(maxDelay, firstDelay * 2 ** failures);
      failures += 1;
      logger.warn({ err, channel, retryInMs: delay }, 'lost the LISTEN connection; reconnecting');
      reconnectTimer = setTimeout(connect, delay);
    };
    client.on('error', lose);
    client.on('end', () => lose());
    client.on('notification', (message) => {
      if (message.channel === channel) options.onNotification(message.payload ?? '');
    });
    connecting = (async () => {
      await client.connect();
      await client.query(`LISTEN ${channel}`);
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      if (lost) return;
      if (stopped) {
        lost = true;
        await quietEnd(client);
        return;
      }
      up = { client, pid: rows[0]!.pid };
      failures = 0;
      options.onUp();
      heartbeatTimer = setInterval(() => {
        const timeout = setTimeout(() => lose(new Error(`no heartbeat answer within ${heartbeatMs} ms`)), heartbeatMs);
        client.query('SELECT 1').then(
          () => clearTimeout(timeout),
          (err: unknown) => {
            clearTimeout(timeout);
            lose(err);
          },
        );
      }, heartbeatMs);
    })()
      .catch(lose)
      .finally(() => {
        connecting = null;
      });
  }

  connect();

  return {
    get backendPid() {
      return up?.pid ?? null;
    },
    async stop() {
      stopped = true;
      if (reconnectTimer) clearTimeout(reconnectTimer);
      if (heartbeatTimer) clearInterval(heartbeatTimer);
      await connecting;
      const current = up;
      up = null;
      if (current) {
        options.onDown();
        await quietEnd(current.client);
      }
    },
  };
}
