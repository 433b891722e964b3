import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where webhooks may be sent. Only globally routable unicast addresses are public: private, loopback,
 * link-local, unique-local, CGNAT, multicast, reserved and documentation ranges are all refused (IPv4-mapped
 * IPv6 is judged as the IPv4 address it carries). `WEBHOOK_ALLOW_PRIVATE_URLS=true` lifts the rule for
 * self-hosted setups and tests.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
}

/** Thrown (and passed to socket callbacks) when a target resolves to an address the policy refuses. */
export class TargetRefusedError extends Error {
  readonly code = 'ERR_WEBHOOK_TARGET_REFUSED';

  constructor(host: string, address: string) {
    super(`${host === address ? address : `${host} resolves to ${address}`}: a private, loopback or link-local address is not allowed`);
    this.name = 'TargetRefusedError';
  }
}

/** The host of a URL as a resolver or isIP sees it (IPv6 literals lose their brackets). */
export function urlHost(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/tls/https that resolves the name once and refuses the connection if any address is
 * not public, so the address that was checked is the address that is connected to: a DNS answer that
 * changes between a check and the connect (rebinding) cannot slip through.
 */
export function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) {
        callback(err, '');
        return;
      }
      const refused = allowPrivate ? undefined : addresses.find((a) => !isPublicAddress(a.address));
      if (refused) {
        callback(new TargetRefusedError(hostname, refused.address), '');
        return;
      }
      if (options.all) {
        callback(null, addresses);
        return;
      }
      const first = addresses[0];
      if (!first) {
        callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
        return;
      }
      callback(null, first.address, first.family);
    });
  };
}

const REGISTRATION_LOOKUP_TIMEOUT_MS = 3_000;

export type TargetCheck = { ok: true } | { ok: false; reason: string };

/**
 * The registration-time check of a webhook URL (send time checks again, at connect). An IP literal is
 * judged directly; a name is resolved and refused if any address is not public. A name that does not
 * resolve now (or within 3 s) is accepted, as Stripe does: it may be published later, and it is checked
 * again at every send.
 */
export async function checkTargetUrl(rawUrl: string, allowPrivate: boolean): Promise<TargetCheck> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return { ok: false, reason: 'url is not a valid URL' };
  }
  if (url.protocol !== 'https:') return { ok: false, reason: 'url must use https' };
  if (allowPrivate) return { ok: true };
  const host = urlHost(url);
  if (isIP(host)) {
    return isPublicAddress(host) ? { ok: true } : { ok: false, reason: `url points to ${host}, a private, loopback or link-local address` };
  }
  const addresses = await new Promise<LookupAddress[]>((resolve) => {
    // A resolver that hangs must not hang the request: after the cap the name counts as unresolved.
    const timer = setTimeout(() => resolve([]), REGISTRATION_LOOKUP_TIMEOUT_MS);
    dnsLookup(host, { all: true }, (err, found) => {
      clearTimeout(timer);
      resolve(err ? [] : found);
    });
  });
  const refused = addresses.find((a) => !isPublicAddress(a.address));
  return refused ? { ok: false, reason: `url host ${host} resolves to ${refused.address}, a private, loopback or link-local address` } : { ok: true };
}
