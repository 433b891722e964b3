import { createTokenSigner } from '../../lib/signed-token';
import { DOWNLOAD_LINK_TTL_MS } from '../deliveries';

/** The public route that serves a label's signed link (api/routes/shipping). */
export const LABEL_PATH = '/api/v1/shipping/labels';

export interface SignedLabelLink {
  url: string;
  expiresAt: Date;
}

/**
 * Label links: an HMAC-signed token naming the shipment and the link's expiry, with a key derived from
 * ENCRYPTION_KEY for this purpose only, valid as long as a download link (7 days per signing).
 */
export function createLabelLinks({ secret, publicBaseUrl }: { secret: Buffer; publicBaseUrl: string }) {
  const signer = createTokenSigner(secret, 'shipping-label');
  return {
    sign(shipmentId: string, now = Date.now()): SignedLabelLink {
      const expiresAtSeconds = Math.floor((now + DOWNLOAD_LINK_TTL_MS) / 1000);
      return { url: `${publicBaseUrl}${LABEL_PATH}/${signer.sign({ s: shipmentId, e: expiresAtSeconds })}`, expiresAt: new Date(expiresAtSeconds * 1000) };
    },

    verify(token: string, now = Date.now()): { shipmentId: string } | 'invalid' | 'expired' {
      const payload = signer.verify(token);
      if (!payload || typeof payload.s !== 'string' || typeof payload.e !== 'number') return 'invalid';
      if (payload.e * 1000 <= now) return 'expired';
      return { shipmentId: payload.s };
    },
  };
}

export type LabelLinks = ReturnType<typeof createLabelLinks>;
