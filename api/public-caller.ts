import type { Request } from 'express';
import type { PublicCaller } from '../domain/storefront/service';
import { API_KEY_PATTERN } from '../lib/api-key-secrets';
import { AppError } from '../lib/errors';

/**
 * The caller of a public storefront route as the domain resolves it (domain/storefront/resolve-merchant.ts):
 * the merchant slug and the optional `Authorization: Bearer <key>` that selects the test environment. A header
 * that is sent must be well-formed: a broken key never falls back to live silently.
 */
export function publicCaller(req: Request, merchantSlug: string): PublicCaller {
  const header = req.headers.authorization;
  if (header === undefined) return { merchantSlug, apiKey: undefined };
  if (!header.startsWith('Bearer ')) throw new AppError('AUTHENTICATION_REQUIRED', 'Send a key as `Authorization: Bearer <key>`, or no Authorization header');
  const apiKey = header.slice('Bearer '.length);
  if (!API_KEY_PATTERN.test(apiKey)) throw new AppError('INVALID_API_KEY', 'The API key is malformed');
  return { merchantSlug, apiKey };
}
