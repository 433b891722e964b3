import type { ActiveKey } from './active-key';

/** The channel the api_keys and accounts triggers notify (migration 0007). */
export const KEY_CHANGES_CHANNEL = 'api_key_changes';

export interface KeyCacheOptions {
  /** Longest an entry is served; 0 turns the cache off. */
  ttlMs: number;
  /** Beyond this the oldest entry goes; only keys that authenticated are stored, so this is a safety bound. */
  maxEntries?: number;
  now?: () => number;
}

/**
 * Active key lookups of this process, by key hash (never the key itself). Fail closed: it serves nothing until
 * `resume()` (the LISTEN connection is up and the cache empty) and from `bypass()` (that connection is lost)
 * until the next `resume()`, so a change committed while no notification could arrive is never answered
 * from memory. Unknown keys are not stored, so a new key works at once.
 */
export interface KeyLookupCache {
  readonly live: boolean;
  get(hash: string): ActiveKey | undefined;
  /**
   * Taken before a database lookup and given back to `put`: any drop in between (a notification, a local
   * revocation) makes `put` discard the result, which may predate that change.
   */
  generation(): number;
  put(hash: string, key: ActiveKey, generation: number): void;
  dropKey(hash: string): void;
  dropAccount(accountId: string): void;
  /** A payload of the triggers: `key:<hash>`, `account:<id>`, anything else drops everything. */
  apply(payload: string): void;
  resume(): void;
  bypass(): void;
}

interface Entry {
  key: ActiveKey;
  expiresAt: number;
}

export function createKeyLookupCache({ ttlMs, maxEntries = 10_000, now = Date.now }: KeyCacheOptions): KeyLookupCache {
  const entries = new Map<string, Entry>();
  let live = false;
  let generation = 0;

  const clear = () => {
    entries.clear();
    generation += 1;
  };
  const dropKey = (hash: string) => {
    entries.delete(hash);
    generation += 1;
  };
  const dropAccount = (accountId: string) => {
    for (const [hash, entry] of entries) if (entry.key.accountId === accountId) entries.delete(hash);
    generation += 1;
  };

  return {
    get live() {
      return live;
    },
    get(hash) {
      if (!live) return undefined;
      const entry = entries.get(hash);
      if (!entry) return undefined;
      if (entry.expiresAt <= now()) {
        entries.delete(hash);
        return undefined;
      }
      return entry.key;
    },
    generation: () => generation,
    put(hash, key, seen) {
      if (!live || ttlMs <= 0 || seen !== generation) return;
      if (entries.size >= maxEntries && !entries.has(hash)) entries.delete(entries.keys().next().value as string);
      // A rotated key's entry ends at its deadline: no notification comes when that moment passes.
      entries.set(hash, { key, expiresAt: Math.min(now() + ttlMs, key.expiresAt?.getTime() ?? Infinity) });
    },
    dropKey,
    dropAccount,
    apply(payload) {
      if (payload.startsWith('key:')) dropKey(payload.slice('key:'.length));
      else if (payload.startsWith('account:')) dropAccount(payload.slice('account:'.length));
      else clear();
    },
    resume() {
      clear();
      live = true;
    },
    bypass() {
      live = false;
      clear();
    },
  };
}
