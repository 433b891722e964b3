import type { Agent } from 'node:https';
import type { Sequelize } from 'sequelize';
import type { TextGenerator } from '../lib/ai';
import type { Config } from '../lib/config';
import type { CryptoBox } from '../lib/crypto-box';
import type { Logger } from '../lib/logger';
import type { BlobStorage } from '../lib/storage';
import { createAiGenerationActivities } from './ai-generation';
import { createFileActivities } from './files';
import { createMaintenanceActivities } from './maintenance';
import { createWebhookActivities } from './webhooks';

/** What activities may touch. The worker builds these once (worker/deps.ts); tests hand in real ones. */
export interface ActivityDeps {
  sequelize: Sequelize;
  logger: Logger;
  config: Config;
  box: CryptoBox;
  /** Product file blobs (FILE_STORAGE_DIR). */
  storage: BlobStorage;
  /** Product copy for ai-generation: the configured provider or the offline generator. */
  textGenerator: TextGenerator;
  /** HTTPS agent for webhook sends; default: keep-alive with the system CAs (+ NODE_EXTRA_CA_CERTS). Tests hand in one trusting their CA. */
  webhookAgent?: Agent;
}

/** Every activity, built from real dependencies handed in by the worker (or by a test). */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createMaintenanceActivities(deps),
    ...createFileActivities(deps),
    ...createAiGenerationActivities(deps),
    ...createWebhookActivities(deps),
  };
}
