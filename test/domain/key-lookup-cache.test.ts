import { createKeyLookupCache } from '../../domain/api-keys/cache';
import type { ActiveKey } from '../../domain/api-keys/active-key';

const key = (id: string, accountId = 'acc_1', expiresAt: Date | null = null): ActiveKey => ({
  id,
  accountId,
  environment: 'test',
  access: 'secret',
  keyHash: `hash-${id}`,
  lastUsedAt: null,
  expiresAt,
  account: { id: accountId, name: 'W', slug: 'w', plan: 'free', fulfillmentEnabled: false, paymentEnabled: false },
});

function liveCache(options: { ttlMs?: number; maxEntries?: number } = {}) {
  let clock = 1_000;
  const cache = createKeyLookupCache({ ttlMs: options.ttlMs ?? 60_000, maxEntries: options.maxEntries, now: () => clock });
  cache.resume();
  const store = (k: ActiveKey) => cache.put(k.keyHash, k, cache.generation());
  return { cache, store, advance: (ms: number) => (clock += ms) };
}

describe('key lookup cache', () => {
  it('serves and stores nothing until resumed (fail closed before the listener is up)', () => {
    const cache = createKeyLookupCache({ ttlMs: 60_000 });
    const k = key('a');
    cache.put(k.keyHash, k, cache.generation());
    expect(cache.live).toBe(false);
    expect(cache.get(k.keyHash)).toBeUndefined();
    cache.resume();
    expect(cache.get(k.keyHash)).toBeUndefined();
  });

  it('serves an entry until its TTL, then drops it', () => {
    const { cache, store, advance } = liveCache({ ttlMs: 60_000 });
    store(key('a'));
    advance(59_999);
    expect(cache.get('hash-a')?.id).toBe('a');
    advance(1);
    expect(cache.get('hash-a')).toBeUndefined();
  });

  it('serves a rotated key no later than its deadline, whatever the TTL (no notification comes when it passes)', () => {
    const { cache, store, advance } = liveCache({ ttlMs: 60_000 });
    // The clock starts at 1000: the deadline is 30 s in, well inside the TTL.
    store(key('a', 'acc_1', new Date(31_000)));
    advance(29_999);
    expect(cache.get('hash-a')?.id).toBe('a');
    advance(1);
    expect(cache.get('hash-a')).toBeUndefined();
  });

  it('stores nothing when the TTL is 0', () => {
    const { cache, store } = liveCache({ ttlMs: 0 });
    store(key('a'));
    expect(cache.get('hash-a')).toBeUndefined();
  });

  it('discards a lookup result when anything was dropped while it was in flight', () => {
    const { cache } = liveCache();
    const before = cache.generation();
    cache.apply('key:hash-other');
    cache.put('hash-a', key('a'), before);
    expect(cache.get('hash-a')).toBeUndefined();
  });

  it('drops one key, one workspace, or everything on the matching notification', () => {
    const { cache, store } = liveCache();
    for (const k of [key('a', 'acc_1'), key('b', 'acc_1'), key('c', 'acc_2'), key('d', 'acc_3')]) store(k);
    cache.apply('key:hash-a');
    expect(cache.get('hash-a')).toBeUndefined();
    expect(cache.get('hash-b')).toBeDefined();
    cache.apply('account:acc_1');
    expect(cache.get('hash-b')).toBeUndefined();
    expect(cache.get('hash-c')).toBeDefined();
    cache.apply('*');
    expect(cache.get('hash-c')).toBeUndefined();
    expect(cache.get('hash-d')).toBeUndefined();
  });

  it('bypasses while the listener is down and comes back empty', () => {
    const { cache, store } = liveCache();
    store(key('a'));
    cache.bypass();
    expect(cache.get('hash-a')).toBeUndefined();
    store(key('b'));
    expect(cache.get('hash-b')).toBeUndefined();
    cache.resume();
    expect(cache.get('hash-a')).toBeUndefined();
    expect(cache.get('hash-b')).toBeUndefined();
    store(key('c'));
    expect(cache.get('hash-c')?.id).toBe('c');
  });

  it('evicts the oldest entry beyond its bound', () => {
    const { cache, store } = liveCache({ maxEntries: 2 });
    store(key('a'));
    store(key('b'));
    store(key('c'));
    expect(cache.get('hash-a')).toBeUndefined();
    expect(cache.get('hash-b')).toBeDefined();
    expect(cache.get('hash-c')).toBeDefined();
  });
});
