import type { Account } from '../../db/models';
import type { Config } from '../../lib/config';
import { createLocalPaymentBackend, type PaymentBackend } from './payment-backend';

/**
 * The payment backend that serves a workspace's sessions, chosen per request (document 2: "the backend is chosen
 * per request"). Every workspace is on the local backend until the payment module's issue adds a provider backend
 * for workspaces with `paymentEnabled`; that is one branch here, and no route or service changes.
 */
export function paymentBackendFor(config: Pick<Config, 'PUBLIC_BASE_URL'>, _account: Pick<Account, 'paymentEnabled'>): PaymentBackend {
  return createLocalPaymentBackend({ publicBaseUrl: config.PUBLIC_BASE_URL });
}
