import type { Sequelize } from 'sequelize';
import type { CheckoutStatus } from '../db/models';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import type { CryptoBox } from '../lib/crypto-box';
import type { BlobStorage } from '../lib/storage';

/** One session, as every checkout activity addresses it. */
export interface CheckoutActivityInput {
  accountId: string;
  environment: 'test' | 'live';
  sessionId: string;
}

export interface CheckoutFulfilmentPlan {
  /** The steps to run in order, each keyed by its name within the session (e.g. `discount`, `delivery:1`). */
  steps: string[];
}

/** The checkout-session workflow's steps. */
export function createCheckoutActivities(_deps: { sequelize: Sequelize; config: Config; logger: Logger; box: CryptoBox; storage: BlobStorage }) {
  return {
    /** At the deadline: expires the session if it is still `open`; answers its status either way. */
    async expireCheckoutIfOpen(_input: CheckoutActivityInput): Promise<CheckoutStatus> {
      throw new Error('TODO(checkout-activities)');
    },
    async planCheckoutFulfilment(_input: CheckoutActivityInput): Promise<CheckoutFulfilmentPlan> {
      throw new Error('TODO(checkout-activities)');
    },
    async runCheckoutFulfilmentStep(_input: CheckoutActivityInput & { step: string }): Promise<void> {
      throw new Error('TODO(checkout-activities)');
    },
  };
}
