import { UniqueConstraintError, type Transaction } from 'sequelize';
import { Account, type Environment, type KeyAccess, type Plan } from '../../db/models';
import { AppError, validationError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { issueKey } from '../api-keys';
import type { ServiceDeps } from '../service-deps';
import { GLOBAL_STOREFRONT_SEGMENTS } from '../storefront';
import { attachOwner, normaliseEmail, type CreatedUser } from '../users';

export interface CreatedWorkspace {
  accountId: string;
  slug: string | null;
  secretKey: string;
  publishableKey: string;
  liveSecretKey: string;
  livePublishableKey: string;
  /** With an owner e-mail: the owner, and its password when the user was created now (shown once). */
  owner?: CreatedUser;
}

export const SLUG_PATTERN = /^[a-z0-9-]{2,80}$/;

async function insertKey(tx: Transaction, accountId: string, environment: Environment, access: KeyAccess, name: string) {
  const { value } = await issueKey(tx, { accountId }, { name, environment, access }, { apiKeyId: null, source: 'workspace_bootstrap' });
  return value;
}

export function createWorkspaceService({ sequelize }: Pick<ServiceDeps, 'sequelize'>) {
  return {
    /**
     * Creates a workspace with its four starting keys (secret and publishable, test and live) and, given
     * `ownerEmail`, its owner: that user, created with a generated password if new (docs/decisions/dashboard.md).
     */
    async create(input: { name: string; slug?: string | null; plan?: Plan; ownerEmail?: string }): Promise<CreatedWorkspace> {
      const name = input.name.trim();
      if (name.length < 1 || name.length > 200) throw validationError('name must be 1 to 200 characters');
      if (input.slug != null && !SLUG_PATTERN.test(input.slug)) {
        throw validationError('slug must be 2 to 80 characters of a-z, 0-9 and hyphens');
      }
      // The storefront's paths under such a slug are another route's (`/order/:deliveryId`, …).
      if (input.slug != null && GLOBAL_STOREFRONT_SEGMENTS.has(input.slug)) {
        throw validationError(`slug "${input.slug}" is reserved: the public storefront uses it for its own routes`, [{ field: 'slug', message: 'reserved' }]);
      }
      const ownerEmail = input.ownerEmail === undefined ? undefined : normaliseEmail(input.ownerEmail);
      try {
        return await sequelize.transaction(async (tx) => {
          const account = await Account.create(
            { id: newId('acc'), name, slug: input.slug ?? null, plan: input.plan ?? 'free' },
            { transaction: tx },
          );
          return {
            accountId: account.id,
            slug: account.slug,
            secretKey: await insertKey(tx, account.id, 'test', 'secret', 'Default secret key'),
            publishableKey: await insertKey(tx, account.id, 'test', 'publishable', 'Default publishable key'),
            liveSecretKey: await insertKey(tx, account.id, 'live', 'secret', 'Default secret key'),
            livePublishableKey: await insertKey(tx, account.id, 'live', 'publishable', 'Default publishable key'),
            ...(ownerEmail === undefined ? {} : { owner: await attachOwner(tx, account.id, ownerEmail) }),
          };
        });
      } catch (err) {
        if (err instanceof UniqueConstraintError) {
          throw new AppError('VALIDATION_ERROR', `slug "${input.slug}" is taken`, [{ field: 'slug', message: 'taken' }], { conflict: true });
        }
        throw err;
      }
    },

    async findBySlug(slug: string): Promise<Account | null> {
      return Account.findOne({ where: { slug } });
    },
  };
}

export type WorkspaceService = ReturnType<typeof createWorkspaceService>;
