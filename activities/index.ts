import type { Agent } from 'node:https';
import type { Sequelize } from 'sequelize';
import type { TextGenerator } from '../lib/ai';
import type { Config } from '../lib/config';
import type { CryptoBox } from '../lib/crypto-box';
import type { Mailer } from '../lib/email';
import type { Logger } from '../lib/logger';
import type { BlobStorage } from '../lib/storage';
import { createAiGenerationActivities } from './ai-generation';
import { createCheckoutActivities } from './checkout';
import { createEmailActivities } from './email';
import { createFileActivities } from './files';
import { createMaintenanceActivities } from './maintenance';
import { createManualOrderActivities } from './manual-orders';
import { createPayoutActivities } from './payouts';
import { createShippingActivities } from './shipping';
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
  /** Buyer e-mail over SMTP_URL from EMAIL_FROM (tests hand in one for their own SMTP server). */
  mailer: Mailer;
  /** HTTPS agent for webhook sends; default: keep-alive with the system CAs (+ NODE_EXTRA_CA_CERTS). Tests hand in one trusting their CA. */
  webhookAgent?: Agent;
}

type Activity = (...args: never[]) => Promise<unknown>;
type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/**
 * Merges per-area activity sets into one. Temporal registers activities by name, so two areas defining the
 * same name would silently shadow each other: that is refused when the worker starts.
 */
export function combineActivities<T extends Record<string, Activity>[]>(...sets: T): UnionToIntersection<T[number]> {
  const all: Record<string, Activity> = {};
  for (const set of sets) {
    for (const [name, fn] of Object.entries(set)) {
      if (name in all) throw new Error(`two activities are named "${name}"; activity names must be unique across areas`);
      all[name] = fn;
    }
  }
  return all as UnionToIntersection<T[number]>;
}

/** Every activity, built from real dependencies handed in by the worker (or by a test). */
export function createActivities(deps: ActivityDeps) {
  return combineActivities(
    createMaintenanceActivities(deps),
    createFileActivities(deps),
    createAiGenerationActivities(deps),
    createWebhookActivities(deps),
    createEmailActivities(deps),
    createCheckoutActivities(deps),
    createManualOrderActivities(deps),
    createPayoutActivities(deps),
    createShippingActivities(deps),
  );
}
