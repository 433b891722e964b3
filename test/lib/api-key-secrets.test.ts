import { API_KEY_PATTERN, hashesEqual, hashKey, keyPrefix, mintKey } from '../../lib/api-key-secrets';

// docs/decisions/auth.md: `sk|pk` + `_test_|_live_` + 40 base62 characters, stored as SHA-256.

describe('API key secrets', () => {
  it('mint keys of the documented shape for each environment and access, with prefix and last 4 as shown', () => {
    for (const environment of ['test', 'live'] as const) {
      for (const access of ['secret', 'publishable'] as const) {
        const key = mintKey(environment, access);
        expect(key.value).toMatch(API_KEY_PATTERN);
        expect(key.prefix).toBe(`${access === 'secret' ? 'sk' : 'pk'}_${environment}_`);
        expect(key.prefix).toBe(keyPrefix(environment, access));
        expect(key.value.startsWith(key.prefix)).toBe(true);
        expect(key.last4).toBe(key.value.slice(-4));
        expect(key.hash).toBe(hashKey(key.value));
      }
    }
  });

  it('store the SHA-256 of the whole key in hex, never the key', () => {
    expect(hashKey('sk_test_abc')).toBe('4b4090ccee1e713c3d411b96a4226b90bd0f0deb34e02d19475a951316fd04ee');
    expect(hashKey('sk_test_abc')).not.toBe(hashKey('sk_test_abC'));
  });

  it('draw every body character from base62, each key distinct', () => {
    const bodies = Array.from({ length: 200 }, () => mintKey('test', 'secret').value.slice('sk_test_'.length));
    expect(new Set(bodies).size).toBe(bodies.length);
    expect(new Set(bodies.join('')).size).toBe(62);
  });

  it('compare hashes only when equal in length and content', () => {
    const hash = hashKey('sk_live_x');
    expect(hashesEqual(hash, hashKey('sk_live_x'))).toBe(true);
    expect(hashesEqual(hash, hashKey('sk_live_y'))).toBe(false);
    expect(hashesEqual(hash, hash.slice(0, 62))).toBe(false);
    expect(hashesEqual(hash, '')).toBe(false);
  });
});
