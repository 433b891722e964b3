import type { Sequelize } from 'sequelize';
import type { Starters } from '../domain/workflow-starters';
import { runRecordedStarts } from '../domain/workflow-starts';
import type { Logger } from '../lib/logger';
import { startRelayLoop, type Relay } from './relay-loop';

/** The channel the `workflow_starts` insert trigger notifies (migration 0008). */
export const START_CHANNEL = 'workflow_starts';

export interface StartRelayOptions {
  sequelize: Sequelize;
  starters: Starters;
  databaseUrl: string;
  logger: Logger;
  sweepIntervalMs?: number;
  batchSize?: number;
  /** Per start; past it the start counts as failed and is retried later. */
  startTimeoutMs?: number;
}

/**
 * The start relay: the other half of durable starts (domain/workflow-starts.ts). It claims due rows of the
 * workflow-start outbox, starts them through the dispatch map of domain/workflow-starters.ts and marks them
 * started, in one transaction per batch. A pass stops at the first sign that Temporal is unreachable; the
 * sweep tries again, so a start lands within a sweep of Temporal coming back.
 */
export function startStartRelay(options: StartRelayOptions): Relay {
  const { sequelize, starters, logger } = options;
  const batchSize = options.batchSize ?? 100;
  const startTimeoutMs = options.startTimeoutMs ?? 10_000;

  async function drainBatch(): Promise<boolean> {
    const pass = await runRecordedStarts(sequelize, starters, { limit: batchSize }, { timeoutMs: startTimeoutMs });
    if (pass.unreachable) logger.warn('start relay: Temporal is unreachable; pending starts wait for the next sweep');
    return pass.claimed === batchSize && !pass.unreachable;
  }

  return startRelayLoop({
    name: 'start relay',
    channel: START_CHANNEL,
    databaseUrl: options.databaseUrl,
    logger,
    sweepIntervalMs: options.sweepIntervalMs ?? 2_000,
    drainBatch,
  });
}
