import { hasEmailSuppression, insertEmailSuppression, insertStorefrontEvent } from '../../db/storefront-activity';
import { requireEncryptionKey } from '../../lib/config';
import { validationError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { createTokenSigner } from '../../lib/signed-token';
import type { AuthContext } from '../auth-context';
import type { ServiceDeps } from '../service-deps';
import type { TrackBody } from './activity-inputs';
import { resolveStorefront } from './merchant';

export const ABANDONED_CART_SUPPRESSION = 'abandoned_cart';

/** What buyers' browsers report about a storefront, and the e-mail addresses that asked for no more reminders. */
export function createStorefrontActivityService({ sequelize, config }: Pick<ServiceDeps, 'sequelize' | 'config'>) {
  const unsubscribeTokens = createTokenSigner(requireEncryptionKey(config), 'abandoned-cart-unsubscribe');

  return {
    async track(auth: AuthContext | undefined, input: TrackBody): Promise<{ accepted: true; id: string }> {
      const { merchantSlug, event, visitorId, ...data } = input;
      const { tenant } = await resolveStorefront(sequelize, merchantSlug, auth);
      const id = newId('sev');
      await insertStorefrontEvent(sequelize, tenant, { id, event, visitorId: visitorId ?? null, data });
      return { accepted: true, id };
    },

    /** The link an abandoned-cart e-mail carries; the token names the workspace and the address. */
    unsubscribeToken(accountId: string, email: string): string {
      return unsubscribeTokens.sign({ a: accountId, e: email.toLowerCase() });
    },

    /** Records the address so no later abandoned-cart e-mail of this workspace goes to it; idempotent. */
    async unsubscribe(token: string): Promise<{ unsubscribed: true; email: string }> {
      const payload = unsubscribeTokens.verify(token);
      if (!payload || typeof payload.a !== 'string' || typeof payload.e !== 'string') {
        throw validationError('token: not a valid unsubscribe link', [{ field: 'token', message: 'invalid or tampered' }]);
      }
      await insertEmailSuppression(sequelize, { accountId: payload.a, email: payload.e, reason: ABANDONED_CART_SUPPRESSION });
      return { unsubscribed: true, email: payload.e };
    },

    async isSuppressed(accountId: string, email: string): Promise<boolean> {
      return hasEmailSuppression(sequelize, { accountId, email: email.toLowerCase(), reason: ABANDONED_CART_SUPPRESSION });
    },
  };
}

export type StorefrontActivityService = ReturnType<typeof createStorefrontActivityService>;
