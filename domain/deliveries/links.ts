import { createTokenSigner } from '../../lib/signed-token';

/** How long one signing of a download link is valid (document 1, Limits); each retrieve signs anew. */
export const DOWNLOAD_LINK_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** The public route that serves a signed link (api/routes/deliveries). */
export const DOWNLOAD_PATH = '/api/v1/storefront/public/downloads';

/** The buyer's order page of one delivery (api/pages/order), the `del_` id its only credential. */
export const ORDER_PAGE_PATH = '/order';

export interface SignedDownloadLink {
  url: string;
  expiresAt: Date;
}

/**
 * Download links: an HMAC-signed token naming the delivery and the link's expiry, keyed by a key derived from
 * ENCRYPTION_KEY for this purpose only (configuration, never a constant), verified in constant time. Beside them,
 * the delivery's order page, which needs no signature (the id is the credential) and never expires.
 */
export function createDownloadLinks({ secret, publicBaseUrl }: { secret: Buffer; publicBaseUrl: string }) {
  const signer = createTokenSigner(secret, 'delivery-download');
  return {
    orderPageUrl: (deliveryId: string) => `${publicBaseUrl}${ORDER_PAGE_PATH}/${deliveryId}`,

    sign(deliveryId: string, now = Date.now()): SignedDownloadLink {
      // The token carries whole seconds; the expiry reported is exactly the one it enforces.
      const expiresAtSeconds = Math.floor((now + DOWNLOAD_LINK_TTL_MS) / 1000);
      const token = signer.sign({ d: deliveryId, e: expiresAtSeconds });
      return { url: `${publicBaseUrl}${DOWNLOAD_PATH}/${token}`, expiresAt: new Date(expiresAtSeconds * 1000) };
    },

    /** The delivery a token names; 'invalid' for a malformed or tampered one, 'expired' past its expiry. */
    verify(token: string, now = Date.now()): { deliveryId: string } | 'invalid' | 'expired' {
      const payload = signer.verify(token);
      if (!payload || typeof payload.d !== 'string' || typeof payload.e !== 'number') return 'invalid';
      if (payload.e * 1000 <= now) return 'expired';
      return { deliveryId: payload.d };
    },
  };
}

export type DownloadLinks = ReturnType<typeof createDownloadLinks>;
