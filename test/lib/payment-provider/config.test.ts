import { loadConfig } from '../../../lib/config';
import { createPaymentProviders, ProviderError } from '../../../lib/payment-provider';
import { configProblems } from '../../helpers/config';

const TOKEN = 't'.repeat(40);
const TEST_TOKEN = 'u'.repeat(40);

describe('payment provider configuration', () => {
  it('is optional: no provider in either environment', () => {
    const providers = createPaymentProviders(loadConfig({}));
    expect(providers.find('live')).toBeNull();
    expect(providers.find('test')).toBeNull();
    expect(() => providers.forEnvironment('test')).toThrow(ProviderError);
    expect(() => providers.forEnvironment('test')).toThrow(/PAYMENT_PROVIDER_TEST_SECRET_KEY/);
  });

  it('gives each environment its own account: test mode only with the test key', () => {
    const config = loadConfig({ PAYMENT_PROVIDER_BASE_URL: 'https://api.xendit.co', PAYMENT_PROVIDER_SECRET_KEY: 'xnd_production_x', PAYMENT_PROVIDER_CALLBACK_TOKEN: TOKEN });
    const providers = createPaymentProviders(config);
    expect(providers.find('live')?.name).toBe('xendit');
    expect(providers.find('test')).toBeNull();
    expect(config.PAYMENT_PROVIDER_TIMEOUT).toBe(20_000);
  });

  it.each([
    [{ PAYMENT_PROVIDER_BASE_URL: 'https://api.xendit.co', PAYMENT_PROVIDER_SECRET_KEY: 'k' }, /^PAYMENT_PROVIDER_CALLBACK_TOKEN: required/],
    [{ PAYMENT_PROVIDER_BASE_URL: 'https://api.xendit.co', PAYMENT_PROVIDER_TEST_SECRET_KEY: 'k' }, /^PAYMENT_PROVIDER_TEST_CALLBACK_TOKEN: required/],
    [{ PAYMENT_PROVIDER_SECRET_KEY: 'k', PAYMENT_PROVIDER_CALLBACK_TOKEN: TOKEN }, /^PAYMENT_PROVIDER_BASE_URL: required/],
    [{ PAYMENT_PROVIDER_BASE_URL: 'https://api.xendit.co' }, /^PAYMENT_PROVIDER_SECRET_KEY: /],
    [{ PAYMENT_PROVIDER_BASE_URL: 'ftp://api.xendit.co', PAYMENT_PROVIDER_SECRET_KEY: 'k', PAYMENT_PROVIDER_CALLBACK_TOKEN: TOKEN }, /^PAYMENT_PROVIDER_BASE_URL: /],
    [{ PAYMENT_PROVIDER_CALLBACK_TOKEN: 'short' }, /^PAYMENT_PROVIDER_CALLBACK_TOKEN: must be at least 32/],
    [{ PAYMENT_PROVIDER_TIMEOUT: '10m' }, /^PAYMENT_PROVIDER_TIMEOUT: must be at most 2m/],
    [
      {
        PAYMENT_PROVIDER_BASE_URL: 'https://api.xendit.co',
        PAYMENT_PROVIDER_SECRET_KEY: 'k',
        PAYMENT_PROVIDER_CALLBACK_TOKEN: TOKEN,
        PAYMENT_PROVIDER_TEST_SECRET_KEY: 'k2',
        PAYMENT_PROVIDER_TEST_CALLBACK_TOKEN: TOKEN,
      },
      /^PAYMENT_PROVIDER_TEST_CALLBACK_TOKEN: must differ/,
    ],
  ])('refuses %j with a message naming the variable', (env, message) => {
    const problems = configProblems(env);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(message);
  });

  it('accepts a full configuration of both environments', () => {
    expect(
      configProblems({
        PAYMENT_PROVIDER_BASE_URL: 'https://api.xendit.co',
        PAYMENT_PROVIDER_SECRET_KEY: 'xnd_production_x',
        PAYMENT_PROVIDER_CALLBACK_TOKEN: TOKEN,
        PAYMENT_PROVIDER_TEST_SECRET_KEY: 'xnd_development_x',
        PAYMENT_PROVIDER_TEST_CALLBACK_TOKEN: TEST_TOKEN,
      }),
    ).toEqual([]);
  });
});
