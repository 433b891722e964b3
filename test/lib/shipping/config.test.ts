import { loadConfig } from '../../../lib/config';
import { createShippingPartners } from '../../../lib/shipping';
import { configProblems } from '../../helpers/config';

const PARTNER = { SHIPPING_PARTNER_URL: 'https://api.biteship.com', SHIPPING_PARTNER_API_KEY: 'biteship_live.k', SHIPPING_PARTNER_WEBHOOK_SECRET: 's'.repeat(32) };

describe('shipping configuration', () => {
  it('defaults to the local partner with the 30s, 2m, 5m, 15m schedule and a 15 s partner timeout', () => {
    const config = loadConfig({});
    expect(config.SHIPPING_LOCAL_SCHEDULE).toEqual([30_000, 120_000, 300_000, 900_000]);
    expect(config.SHIPPING_PARTNER_TIMEOUT).toBe(15_000);
    const partners = createShippingPartners(config);
    expect([partners.forEnvironment('test').name, partners.forEnvironment('live').name]).toEqual(['local', 'local']);
  });

  it('uses the HTTP partner for live with its key, and for test only with the testing key', () => {
    expect(configProblems(PARTNER)).toEqual([]);
    const live = createShippingPartners(loadConfig(PARTNER));
    expect([live.forEnvironment('live').name, live.forEnvironment('test').name]).toEqual(['biteship', 'local']);
    const both = createShippingPartners(loadConfig({ ...PARTNER, SHIPPING_PARTNER_TEST_API_KEY: 'biteship_test.k' }));
    expect([both.forEnvironment('live').name, both.forEnvironment('test').name]).toEqual(['biteship', 'biteship']);
    // A shipment booked by the HTTP partner stays with it; without it configured, operations on it wait.
    expect(() => createShippingPartners(loadConfig({})).named('biteship', 'live')).toThrow(/no longer configured/);
  });

  it.each([
    [{ SHIPPING_PARTNER_URL: 'ftp://partner.example' }, 'SHIPPING_PARTNER_URL'],
    [{ ...PARTNER, SHIPPING_PARTNER_API_KEY: '' }, 'SHIPPING_PARTNER_API_KEY'],
    [{ ...PARTNER, SHIPPING_PARTNER_WEBHOOK_SECRET: undefined }, 'SHIPPING_PARTNER_WEBHOOK_SECRET'],
    [{ SHIPPING_PARTNER_WEBHOOK_SECRET: 'short' }, 'SHIPPING_PARTNER_WEBHOOK_SECRET'],
    [{ SHIPPING_PARTNER_API_KEY: 'k' }, 'SHIPPING_PARTNER_URL'],
    [{ SHIPPING_PARTNER_TEST_API_KEY: 'k' }, 'SHIPPING_PARTNER_URL'],
    [{ SHIPPING_PARTNER_TIMEOUT: '500ms' }, 'SHIPPING_PARTNER_TIMEOUT'],
    [{ SHIPPING_PARTNER_TIMEOUT: '5m' }, 'SHIPPING_PARTNER_TIMEOUT'],
    [{ SHIPPING_LOCAL_SCHEDULE: '30s,2m,5m' }, 'SHIPPING_LOCAL_SCHEDULE'],
    [{ SHIPPING_LOCAL_SCHEDULE: '30s,2m,5m,soon' }, 'SHIPPING_LOCAL_SCHEDULE'],
  ])('refuses %j naming %s', (env, name) => {
    const problems = configProblems(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined)) as Record<string, string>);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${name}: `));
  });
});
