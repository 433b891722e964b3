import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/**
 * Self-contained signed tokens for links that act without a login (an unsubscribe link in an e-mail): the
 * payload travels in the token, an HMAC-SHA256 proves the service wrote it. Each purpose gets its own key,
 * derived from the service's secret, so a token of one purpose never verifies as another.
 */
export interface TokenSigner {
  sign(payload: Record<string, unknown>): string;
  /** The payload, or null for a token that is malformed, tampered with or signed for another purpose. */
  verify(token: string): Record<string, unknown> | null;
}

export function createTokenSigner(secret: Buffer, purpose: string): TokenSigner {
  const key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), `commerce-service/${purpose}`, 32));
  const mac = (body: string) => createHmac('sha256', key).update(body).digest();
  return {
    sign(payload) {
      const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
      return `${body}.${mac(body).toString('base64url')}`;
    },
    verify(token) {
      const [body, signature, extra] = token.split('.');
      if (!body || !signature || extra !== undefined) return null;
      const expected = mac(body);
      const given = Buffer.from(signature, 'base64url');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
      try {
        const payload: unknown = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
        return payload && typeof payload === 'object' && !Array.isArray(payload) ? (payload as Record<string, unknown>) : null;
      } catch {
        return null;
      }
    },
  };
}
