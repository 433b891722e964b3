import type { Agent } from 'node:https';
import type { Sequelize } from 'sequelize';
import type { TextGenerator } from '../lib/ai';
import type { Config } from '../lib/config';
import type { CryptoBox } from '../lib/crypto-box';
import type { Mailer } from '../lib/email';
import type { Logger } from '../lib/logger';
import type { BlobStorage } from '../lib/storage';

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
