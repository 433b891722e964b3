import { DOWNLOAD_LINK_TTL_MS, DOWNLOAD_PATH, createDownloadLinks } from '../../domain/deliveries/links';
import { createTokenSigner } from '../../lib/signed-token';

// docs/decisions/deliveries.md: a download link is valid 7 days per signing, to the second, and only as signed.

const secret = Buffer.alloc(32, 7);
const links = createDownloadLinks({ secret, publicBaseUrl: 'https://shop.example' });
const tokenOf = (url: string) => url.slice(`https://shop.example${DOWNLOAD_PATH}/`.length);
const now = Date.parse('2026-02-01T10:00:00.750Z');

describe('download links', () => {
  it('expire 7 days after signing, cut to the whole second the token carries', () => {
    expect(DOWNLOAD_LINK_TTL_MS).toBe(7 * 86_400_000);
    const link = links.sign('dlv_1', now);
    expect(link.expiresAt.toISOString()).toBe('2026-02-08T10:00:00.000Z');
    expect(link.url.startsWith(`https://shop.example${DOWNLOAD_PATH}/`)).toBe(true);
  });

  it('name their delivery until the expiry, and are expired from that instant on', () => {
    const link = links.sign('dlv_1', now);
    const token = tokenOf(link.url);
    expect(links.verify(token, link.expiresAt.getTime() - 1)).toEqual({ deliveryId: 'dlv_1' });
    expect(links.verify(token, link.expiresAt.getTime())).toBe('expired');
  });

  it('are invalid when tampered with, signed with another secret or for another purpose', () => {
    const token = tokenOf(links.sign('dlv_1', now).url);
    const [body, signature] = token.split('.') as [string, string];
    const otherBody = Buffer.from(JSON.stringify({ d: 'dlv_2', e: 4_000_000_000 })).toString('base64url');
    expect(links.verify(`${otherBody}.${signature}`, now)).toBe('invalid');
    expect(links.verify(`${body}.${signature.slice(0, -2)}`, now)).toBe('invalid');
    expect(links.verify(`${token}.extra`, now)).toBe('invalid');
    expect(links.verify('', now)).toBe('invalid');
    const forged = createDownloadLinks({ secret: Buffer.alloc(32, 8), publicBaseUrl: 'https://shop.example' }).sign('dlv_1', now);
    expect(links.verify(tokenOf(forged.url), now)).toBe('invalid');
    const otherPurpose = createTokenSigner(secret, 'abandoned-cart-unsubscribe').sign({ d: 'dlv_1', e: 4_000_000_000 });
    expect(links.verify(otherPurpose, now)).toBe('invalid');
  });

  it('are invalid when a well-signed payload lacks the delivery or the expiry', () => {
    const sameKey = createTokenSigner(secret, 'delivery-download');
    expect(links.verify(sameKey.sign({ d: 'dlv_1' }), now)).toBe('invalid');
    expect(links.verify(sameKey.sign({ d: 1, e: 4_000_000_000 }), now)).toBe('invalid');
    expect(links.verify(sameKey.sign({ d: 'dlv_1', e: 4_000_000_000 }), now)).toEqual({ deliveryId: 'dlv_1' });
  });
});
