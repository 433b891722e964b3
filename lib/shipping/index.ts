import type { Config } from '../config';
import { createBiteshipPartner } from './biteship';
import { createLocalPartner } from './local-partner';
import { PartnerError, type PartnerName, type ShippingPartner } from './types';

export * from './types';

export type ShippingConfig = Pick<Config, 'SHIPPING_PARTNER_URL' | 'SHIPPING_PARTNER_API_KEY' | 'SHIPPING_PARTNER_TEST_API_KEY' | 'SHIPPING_PARTNER_TIMEOUT'>;

/**
 * The partner of each environment: live uses the HTTP partner when SHIPPING_PARTNER_URL is set; test uses it
 * only with SHIPPING_PARTNER_TEST_API_KEY (the partner's own testing mode), so test-mode checkouts never book
 * a real courier. Otherwise the local partner.
 */
export function createShippingPartners(config: ShippingConfig) {
  const local = createLocalPartner();
  const remote = (apiKey: string | undefined) =>
    config.SHIPPING_PARTNER_URL && apiKey ? createBiteshipPartner({ baseUrl: config.SHIPPING_PARTNER_URL, apiKey, timeoutMs: config.SHIPPING_PARTNER_TIMEOUT }) : null;
  const byEnvironment = { live: remote(config.SHIPPING_PARTNER_API_KEY), test: remote(config.SHIPPING_PARTNER_TEST_API_KEY) };
  return {
    forEnvironment(environment: 'test' | 'live'): ShippingPartner {
      return byEnvironment[environment] ?? local;
    },
    /** The partner that booked a shipment (its row names it). */
    named(name: PartnerName, environment: 'test' | 'live'): ShippingPartner {
      if (name === 'local') return local;
      const partner = byEnvironment[environment];
      if (!partner) throw new PartnerError('unavailable', `the shipping partner that booked this shipment is no longer configured (SHIPPING_PARTNER_URL)`);
      return partner;
    },
  };
}

export type ShippingPartners = ReturnType<typeof createShippingPartners>;
