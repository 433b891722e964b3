import type { Transaction } from 'sequelize';
import type { Account, CheckoutSession } from '../../db/models';
import type { Config } from '../../lib/config';
import { AppError } from '../../lib/errors';
import { createPaymentProviders, type PaymentProvider, type PaymentProviderConfig } from '../../lib/payment-provider';
import { createLocalPaymentBackend, createProviderPaymentBackend, openProviderInvoice, type PaymentBackend } from './payment-backend';

/**
 * The payment backend that serves a workspace's sessions, chosen per request (document 2: "the backend is chosen
 * per request"). Every workspace is on the local backend until the payment module's issue adds a provider backend
 * for workspaces with `paymentEnabled`; that is one branch here, and no route or service changes.
 */
export function paymentBackendFor(config: Pick<Config, 'PUBLIC_BASE_URL'>, _account: Pick<Account, 'paymentEnabled'>): PaymentBackend {
  return createLocalPaymentBackend({ publicBaseUrl: config.PUBLIC_BASE_URL });
}

function providerOf(config: PaymentProviderConfig, session: Pick<CheckoutSession, 'environment'>): PaymentProvider {
  const provider = createPaymentProviders(config).find(session.environment);
  if (!provider) throw new AppError('PARTNER_UNAVAILABLE', `No payment provider is configured for the ${session.environment} environment`);
  return provider;
}

/**
 * The backend that takes a session's money: the one fixed on the session at its creation (`backend`), so a session
 * started before the payment module was switched on or off finishes where it started.
 */
export function paymentBackendOfSession(config: Pick<Config, 'PUBLIC_BASE_URL'> & PaymentProviderConfig, session: Pick<CheckoutSession, 'backend' | 'environment'>): PaymentBackend {
  if (session.backend === 'local') return createLocalPaymentBackend({ publicBaseUrl: config.PUBLIC_BASE_URL });
  return createProviderPaymentBackend({ publicBaseUrl: config.PUBLIC_BASE_URL, provider: providerOf(config, session) });
}

/**
 * What a creator passes to `insertCheckoutSession` so a provider-mode session has its provider invoice from the
 * start, and its `hostedUrl` is the provider's page in the create answer (document 2: "in provider mode it is on
 * the provider's hosted domain"). A provider that does not answer is `502 PARTNER_UNAVAILABLE`, nothing written.
 */
export interface ProviderInvoices {
  open(tx: Transaction, session: CheckoutSession): Promise<void>;
  /** Best effort: an invoice whose session was not written (its transaction rolled back) can no longer be paid. */
  discard(session: CheckoutSession): Promise<void>;
}

export function providerInvoicesOf(config: Pick<Config, 'PUBLIC_BASE_URL'> & PaymentProviderConfig): ProviderInvoices {
  return {
    open: (tx, session) => openProviderInvoice(tx, providerOf(config, session), config.PUBLIC_BASE_URL, session).then(() => undefined),
    async discard(session) {
      if (!session.providerInvoiceId) return;
      await providerOf(config, session).expireInvoice(session.providerInvoiceId);
    },
  };
}
