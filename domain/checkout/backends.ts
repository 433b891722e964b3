import type { Account, CheckoutSession } from '../../db/models';
import type { Config } from '../../lib/config';
import { AppError } from '../../lib/errors';
import { createPaymentProviders, type PaymentProviderConfig } from '../../lib/payment-provider';
import { createLocalPaymentBackend, createProviderPaymentBackend, type PaymentBackend } from './payment-backend';

/**
 * The payment backend that serves a workspace's sessions, chosen per request (document 2: "the backend is chosen
 * per request"). Every workspace is on the local backend until the payment module's issue adds a provider backend
 * for workspaces with `paymentEnabled`; that is one branch here, and no route or service changes.
 */
export function paymentBackendFor(config: Pick<Config, 'PUBLIC_BASE_URL'>, _account: Pick<Account, 'paymentEnabled'>): PaymentBackend {
  return createLocalPaymentBackend({ publicBaseUrl: config.PUBLIC_BASE_URL });
}

/**
 * The backend that takes a session's money: the one fixed on the session at its creation (`backend`), so a session
 * started before the payment module was switched on or off finishes where it started.
 */
export function paymentBackendOfSession(config: Pick<Config, 'PUBLIC_BASE_URL'> & PaymentProviderConfig, session: Pick<CheckoutSession, 'backend' | 'environment'>): PaymentBackend {
  if (session.backend === 'local') return createLocalPaymentBackend({ publicBaseUrl: config.PUBLIC_BASE_URL });
  const provider = createPaymentProviders(config).find(session.environment);
  if (!provider) throw new AppError('PARTNER_UNAVAILABLE', `No payment provider is configured for the ${session.environment} environment`);
  return createProviderPaymentBackend({ publicBaseUrl: config.PUBLIC_BASE_URL, provider });
}
