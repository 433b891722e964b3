import type { Client } from '@temporalio/client';
import type { Sequelize } from 'sequelize';
import type { Config } from '../lib/config';
import type { CryptoBox } from '../lib/crypto-box';
import type { Logger } from '../lib/logger';
import type { BlobStorage } from '../lib/storage';
import type { Starters } from './workflow-starters';

/**
 * The one dependency shape of every domain service: each factory takes `Pick<ServiceDeps, …>` of what it
 * uses, so the API, the CLI and tests build services the same way.
 */
export interface ServiceDeps {
  sequelize: Sequelize;
  config: Config;
  logger: Logger;
  box: CryptoBox;
  storage: BlobStorage;
  /** Starts and signals workflows (domain/workflow-starters.ts). */
  starters: Starters;
  /** For the few operations beyond starting: listing and cancelling an endpoint's waiting deliveries. */
  temporal: Client;
}
