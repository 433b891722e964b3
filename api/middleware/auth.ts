import type { RequestHandler } from 'express';
import type { ApiKeyService } from '../../domain/api-keys';
import { assertModuleEnabled, type GatedModule } from '../../domain/modules';
import { API_KEY_PATTERN } from '../../lib/api-key-secrets';
import { AppError, forbidden } from '../../lib/errors';

/**
 * `Authorization: Bearer <key>` exactly as document 1 states it: the scheme is case-sensitive, the key is
 * resolved by its hash on every request (from the process's key cache or the database; a revocation counts at
 * once in the revoking process and within 100 ms in the others, docs/decisions/auth.md), and `X-Account-Id`
 * may only name the key's own workspace.
 */
export function authenticate(keys: ApiKeyService, options: { optional?: boolean } = {}): RequestHandler {
  return async (req, _res, next) => {
    const header = req.headers.authorization;
    // Keyless callers of an optional-key route pass as they are; a key that is sent is checked like anywhere else.
    if (options.optional && header === undefined) return next();
    if (!header || !header.startsWith('Bearer ')) {
      throw new AppError('AUTHENTICATION_REQUIRED', 'Send an API key as `Authorization: Bearer <key>`');
    }
    const value = header.slice('Bearer '.length);
    if (!API_KEY_PATTERN.test(value)) throw new AppError('INVALID_API_KEY', 'The API key is malformed');
    const key = await keys.findActiveKey(value);
    if (!key) throw new AppError('INVALID_API_KEY', 'The API key is unknown or revoked');

    const selected = req.headers['x-account-id'];
    if (selected !== undefined && selected !== key.accountId) {
      throw forbidden('X-Account-Id names a workspace this key does not belong to');
    }
    req.auth = {
      accountId: key.accountId,
      environment: key.environment,
      apiKeyId: key.id,
      access: key.access,
      account: key.account,
    };
    keys.touchLastUsed(key)?.catch((err: unknown) => req.log.warn({ err }, 'could not record lastUsedAt'));
    next();
  };
}

/** Publishable keys may only call the routes that declare they accept them (the public catalogue reads). */
export function requireAccess(allowPublishable: boolean): RequestHandler {
  return (req, _res, next) => {
    if (req.auth?.access === 'publishable' && !allowPublishable) {
      throw forbidden('A publishable key may only read the public catalogue; use a secret key');
    }
    next();
  };
}

/**
 * Routes of a module answer its refusal while the workspace has the module off. The flags come with the key
 * (cached like it; a switch drops the workspace from every process's cache, docs/decisions/modules.md).
 */
export function requireModule(module: GatedModule): RequestHandler {
  return (req, _res, next) => {
    assertModuleEnabled(req.auth!.account, module);
    next();
  };
}
