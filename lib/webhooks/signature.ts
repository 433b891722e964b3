import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The webhook signature scheme of document 2: `X-Service-Signature: t=<unix seconds>,v1=<hex>` where v1 is
 * HMAC-SHA256 of `<t>.<raw body>` keyed by the endpoint secret (`whsec_…`, used as is). This file has no
 * dependency beyond node:crypto because receivers import it (the package's public export).
 */
export const SIGNATURE_HEADER = 'X-Service-Signature';
export const DEFAULT_TOLERANCE_SECONDS = 300;
export const SECRET_PREFIX = 'whsec_';

export interface VerifyWebhookOptions {
  /** Largest accepted |now − t| in seconds. Default 300. */
  toleranceSeconds?: number;
  /** The receiver's clock, in unix seconds; defaults to the system clock. */
  now?: number;
}

export type WebhookVerificationFailure = 'missing_header' | 'malformed_header' | 'timestamp_outside_tolerance' | 'signature_mismatch';

export type WebhookVerification = { valid: true; timestamp: number } | { valid: false; reason: WebhookVerificationFailure };

/** A new signing secret: `whsec_` and 32 random bytes in base64url. */
export function generateWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
}

function hmacHex(secret: string, timestamp: number, rawBody: string | Buffer): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex');
}

/** The header value for one send: `t=<timestamp>,v1=<hex>`. */
export function signWebhookPayload(rawBody: string | Buffer, secret: string, timestamp: number): string {
  return `t=${timestamp},v1=${hmacHex(secret, timestamp, rawBody)}`;
}

function parseHeader(header: string): { timestamp: number; signatures: string[] } | null {
  let timestamp: number | null = null;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) return null;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (!/^\d{1,12}$/.test(value)) return null;
      timestamp = Number(value);
    } else if (key === 'v1') {
      signatures.push(value);
    }
    // Other schemes (a future v2) are ignored, so receivers keep working when one is added.
  }
  return timestamp === null || signatures.length === 0 ? null : { timestamp, signatures };
}

/**
 * Checks a delivery exactly as received: `rawBody` must be the bytes of the request body before any JSON
 * parsing. Every comparison is constant-time; any `v1` entry may match (more than one is sent only while
 * secrets are being rolled over).
 */
export function verifyWebhookSignature(
  rawBody: string | Buffer,
  header: string | null | undefined,
  secret: string,
  options: VerifyWebhookOptions = {},
): WebhookVerification {
  if (!header) return { valid: false, reason: 'missing_header' };
  const parsed = parseHeader(header);
  if (!parsed) return { valid: false, reason: 'malformed_header' };
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - parsed.timestamp) > tolerance) return { valid: false, reason: 'timestamp_outside_tolerance' };

  const expected = Buffer.from(hmacHex(secret, parsed.timestamp, rawBody), 'hex');
  let matched = false;
  for (const candidate of parsed.signatures) {
    const given = /^[0-9a-f]+$/i.test(candidate) ? Buffer.from(candidate, 'hex') : Buffer.alloc(0);
    // Length is public (always 32 bytes for SHA-256); compare the rest in constant time, and keep looping.
    if (given.length === expected.length && timingSafeEqual(given, expected)) matched = true;
  }
  return matched ? { valid: true, timestamp: parsed.timestamp } : { valid: false, reason: 'signature_mismatch' };
}
