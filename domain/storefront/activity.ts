import { tenantWhere } from '../../db/tenancy';
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
      await sequelize.query(
        'INSERT INTO storefront_events (id, account_id, environment, event, visitor_id, data) VALUES (:id, :accountId, :environment, :event, :visitorId, :data)',
        { replacements: { id, ...tenantWhere(tenant), event, visitorId: visitorId ?? null, data: JSON.stringify(data) } },
      );
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
      await sequelize.query(
        `INSERT INTO email_suppressions (account_id, email, reason) SELECT id, :email, :reason FROM accounts WHERE id = :accountId
         ON CONFLICT DO NOTHING`,
        { replacements: { accountId: payload.a, email: payload.e, reason: ABANDONED_CART_SUPPRESSION } },
      );
      return { unsubscribed: true, email: payload.e };
    },

    async isSuppressed(accountId: string, email: string): Promise<boolean> {
      const [rows] = await sequelize.query('SELECT 1 FROM email_suppressions WHERE account_id = :accountId AND email = :email AND reason = :reason', {
        replacements: { accountId, email: email.toLowerCase(), reason: ABANDONED_CART_SUPPRESSION },
      });
      return (rows as unknown[]).length > 0;
    },
  };
}

export type StorefrontActivityService = ReturnType<typeof createStorefrontActivityService>;
