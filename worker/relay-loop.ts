import { Client as PgClient } from 'pg';
import type { Logger } from '../lib/logger';

export interface RelayLoopOptions {
  /** Names the relay in logs. */
  name: string;
  /** The channel its table's insert trigger notifies. */
  channel: string;
  /** For the LISTEN connection, which must live outside the query pool. */
  databaseUrl: string;
  logger: Logger;
  /** Safety net for lost notifications, for rows committed while no relay ran, and for rows due later. */
  sweepIntervalMs: number;
  /** One claimed batch; resolves true when more may be waiting right now. */
  drainBatch(): Promise<boolean>;
}

export interface Relay {
  /** Drains now (also what a notification does). */
  wake(): void;
  /** Resolves when the pass in progress, and any pass it queued, has finished. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * What every outbox relay shares: LISTEN on its channel (re-listening after a lost connection), a periodic
 * sweep, and one pass at a time that drains batch after batch while the previous one says more may wait.
 */
export function startRelayLoop(options: RelayLoopOptions): Relay {
  const { name, channel, logger } = options;
  let stopped = false;
  let draining: Promise<void> | null = null;
  let again = false;
  let listener: PgClient | null = null;
  let reconnectTimer: NodeJS.Timeout | null = null;

  async function drain(): Promise<void> {
    do {
      again = false;
      let more = true;
      while (!stopped && more) more = await options.drainBatch();
    } while (again && !stopped);
  }

  function wake(): void {
    if (stopped) return;
    if (draining) {
      again = true;
      return;
    }
    draining = drain()
      .catch((err: unknown) => logger.error({ err }, `${name} pass failed; the next sweep retries`))
      .finally(() => {
        draining = null;
      });
  }

  async function listen(): Promise<void> {
    const client = new PgClient({ connectionString: options.databaseUrl });
    let lost = false;
    const retry = (err?: unknown) => {
      if (lost || stopped) return;
      lost = true;
      logger.warn({ err }, `${name} lost its LISTEN connection; reconnecting (the sweep covers the gap)`);
      client.removeAllListeners();
      client.end().catch(() => undefined);
      if (listener === client) listener = null;
      reconnectTimer = setTimeout(() => void listen(), 1_000);
    };
    client.on('error', retry);
    client.on('end', () => retry());
    client.on('notification', () => wake());
    try {
      await client.connect();
      await client.query(`LISTEN ${channel}`);
      if (stopped) {
        await client.end();
        return;
      }
      listener = client;
      // Anything committed while we were not listening.
      wake();
    } catch (err) {
      retry(err);
    }
  }

  void listen();
  const sweep = setInterval(wake, options.sweepIntervalMs);
  wake();

  return {
    wake,
    async idle() {
      while (draining) await draining;
    },
    async stop() {
      stopped = true;
      clearInterval(sweep);
      if (reconnectTimer) clearTimeout(reconnectTimer);
      await draining;
      const client = listener;
      listener = null;
      if (client) {
        client.removeAllListeners();
        await client.end().catch(() => undefined);
      }
    },
  };
}
