import type { Config } from '../config';
import { createXenditProvider } from './xendit';
import { ProviderError, type PaymentProvider } from './types';

export * from './types';

export type PaymentProviderConfig = Pick<
  Config,
  | 'PAYMENT_PROVIDER_BASE_URL'
  | 'PAYMENT_PROVIDER_SECRET_KEY'
  | 'PAYMENT_PROVIDER_CALLBACK_TOKEN'
  | 'PAYMENT_PROVIDER_TEST_SECRET_KEY'
  | 'PAYMENT_PROVIDER_TEST_CALLBACK_TOKEN'
  | 'PAYMENT_PROVIDER_TIMEOUT'
>;

/**
 * The provider account of each environment: live uses the secret key and callback token, test the provider's
 * test-mode key and token (its development keys), so a test-environment checkout never moves real money. An
 * environment without its key has no provider: provider-mode requests there answer 503 PAYMENT_PROVIDER_UNAVAILABLE.
 */
export function createPaymentProviders(config: PaymentProviderConfig) {
  const make = (secretKey: string | undefined, callbackToken: string | undefined) =>
    config.PAYMENT_PROVIDER_BASE_URL && secretKey && callbackToken
      ? createXenditProvider({ baseUrl: config.PAYMENT_PROVIDER_BASE_URL, secretKey, callbackToken, timeoutMs: config.PAYMENT_PROVIDER_TIMEOUT })
      : null;
  const byEnvironment = {
    live: make(config.PAYMENT_PROVIDER_SECRET_KEY, config.PAYMENT_PROVIDER_CALLBACK_TOKEN),
    test: make(config.PAYMENT_PROVIDER_TEST_SECRET_KEY, config.PAYMENT_PROVIDER_TEST_CALLBACK_TOKEN),
  };
  return {
    /** Null when that environment has no provider account configured. */
    find(environment: 'test' | 'live'): PaymentProvider | null {
      return byEnvironment[environment];
    },
    forEnvironment(environment: 'test' | 'live'): PaymentProvider {
      const provider = byEnvironment[environment];
      if (!provider) {
        const variable = environment === 'live' ? 'PAYMENT_PROVIDER_SECRET_KEY' : 'PAYMENT_PROVIDER_TEST_SECRET_KEY';
        throw new ProviderError('unavailable', `no payment provider is configured for the ${environment} environment (PAYMENT_PROVIDER_BASE_URL, ${variable})`);
      }
      return provider;
    },
  };
}

export type PaymentProviders = ReturnType<typeof createPaymentProviders>;
