import type { Sequelize, Transaction } from 'sequelize';
import { readActiveKey } from '../../db/api-keys';
import { ApiKey, type Environment, type KeyAccess } from '../../db/models';
import { audit } from '../../db/outbox';
import { listPage, type PageRequest } from '../../db/pagination';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import { hashKey, hashesEqual, mintKey } from '../../lib/api-key-secrets';
import { forbidden, notFound } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { auditActor, type AuthContext } from '../auth-context';
import { createEmailQueue } from '../email';
import type { ServiceDeps } from '../service-deps';
import { findOwner, findUserEmail } from '../users';
import { startRecordedNow } from '../workflow-starts';
import type { ActiveKey } from './active-key';
import { createKeyLookupCache } from './cache';
import { acceptsAt, checkRotatable, rotationDeadline } from './rotation';

const LAST_USED_WRITE_INTERVAL_MS = 60_000;

export type ApiKeyRow = Pick<
  ApiKey,
  'id' | 'accountId' | 'name' | 'prefix' | 'last4' | 'environment' | 'access' | 'createdAt' | 'lastUsedAt' | 'revokedAt' | 'expiresAt' | 'replacedByKeyId'
>;

export function toApiKeyDto(key: ApiKeyRow) {
  return {
    id: key.id,
    accountId: key.accountId,
    name: key.name,
    prefix: key.prefix,
    last4: key.last4,
    environment: key.environment,
    access: key.access,
    createdAt: key.createdAt.toISOString(),
    lastUsedAt: key.lastUsedAt ? key.lastUsedAt.toISOString() : null,
    revokedAt: key.revokedAt ? key.revokedAt.toISOString() : null,
    expiresAt: key.expiresAt ? key.expiresAt.toISOString() : null,
    replacedBy: key.replacedByKeyId ?? null,
  };
}

const NOTICE_TIME = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });
const noticeTime = (at: Date) => `${NOTICE_TIME.format(at)} UTC`;

export interface KeyToIssue {
  name: string;
  environment: Environment;
  access: KeyAccess;
}

/**
 * Mints a key, stores its hash and writes the `api_key.created` audit entry, inside the caller's
 * transaction. The API, the workspace bootstrap and the CLI all issue keys through here.
 */
export async function issueKey(
  transaction: Transaction,
  tenant: Pick<Tenant, 'accountId'>,
  input: KeyToIssue,
  actor: { apiKeyId: string | null; userId?: string; source: 'api' | 'dashboard' | 'workspace_bootstrap' | 'cli' },
): Promise<{ key: ApiKey; value: string }> {
  const minted = mintKey(input.environment, input.access);
  const key = await ApiKey.create(
    {
      id: newId('key'),
      accountId: tenant.accountId,
      environment: input.environment,
      access: input.access,
      name: input.name,
      prefix: minted.prefix,
      last4: minted.last4,
      keyHash: minted.hash,
    },
    { transaction },
  );
  await audit(transaction, { accountId: tenant.accountId, environment: input.environment }, {
    action: 'api_key.created',
    actorApiKeyId: actor.apiKeyId,
    actorUserId: actor.userId ?? null,
    targetType: 'api_key',
    targetId: key.id,
    data: { name: key.name, environment: key.environment, access: key.access, source: actor.source },
  });
  return { key, value: minted.value };
}

export function createApiKeyService(deps: Pick<ServiceDeps, 'sequelize' | 'config' | 'box' | 'starters' | 'logger'>) {
  const { sequelize, config } = deps;
  const emails = createEmailQueue(deps);
  // Per process: when this process last wrote lastUsedAt for a key, so busy keys cost one write a minute.
  const lastUsedWrites = new Map<string, number>();
  // Serves nothing until the app's LISTEN connection resumes it (api/app.ts).
  const cache = createKeyLookupCache({ ttlMs: config.AUTH_CACHE_TTL });

  return {
    cache,

    /** Resolves a presented key to its active row and workspace; null when unknown, revoked, or rotated and past its deadline. */
    async findActiveKey(value: string, now = Date.now()): Promise<ActiveKey | null> {
      const hash = hashKey(value);
      const cached = cache.get(hash);
      if (cached) return cached;
      const generation = cache.generation();
      const row = await readActiveKey(sequelize, hash);
      if (!row || !hashesEqual(row.keyHash, hash) || !acceptsAt(row, now)) return null;
      const key: ActiveKey = {
        id: row.id,
        accountId: row.accountId,
        environment: row.environment,
        access: row.access,
        keyHash: row.keyHash,
        lastUsedAt: row.lastUsedAt,
        expiresAt: row.expiresAt,
        account: {
          id: row.accountId,
          name: row.name,
          slug: row.slug,
          plan: row.plan,
          fulfillmentEnabled: row.fulfillmentEnabled,
          paymentEnabled: row.paymentEnabled,
        },
      };
      cache.put(hash, key, generation);
      return key;
    },

    /** Keeps lastUsedAt within a minute of the truth without a write on every request. */
    touchLastUsed(key: Pick<ActiveKey, 'id' | 'lastUsedAt'>, now = Date.now()): Promise<void> | undefined {
      const last = lastUsedWrites.get(key.id) ?? key.lastUsedAt?.getTime() ?? 0;
      if (now - last < LAST_USED_WRITE_INTERVAL_MS) return undefined;
      lastUsedWrites.set(key.id, now);
      return ApiKey.update({ lastUsedAt: new Date(now) }, { where: { id: key.id } }).then(() => undefined);
    },

    list(auth: AuthContext, page: PageRequest) {
      return listPage(sequelize, ApiKey, { tenant: auth, page, idPrefix: 'key', toDto: toApiKeyDto });
    },

    async create(auth: AuthContext, input: KeyToIssue) {
      // A test key must not mint live keys (nor the reverse): that would escape its environment.
      if (input.environment !== auth.environment) {
        throw forbidden(`A ${auth.environment} key can only create ${auth.environment} keys`);
      }
      const { key, value } = await sequelize.transaction((transaction) =>
        issueKey(transaction, auth, input, { apiKeyId: auth.apiKeyId, userId: auth.userId, source: auth.userId ? 'dashboard' : 'api' }),
      );
      return { ...toApiKeyDto(key), value };
    },

    /**
     * Rotates a key (document 1, Authentication: a dashboard operation): a new key of the same name, environment
     * and access is minted at once (its value returned once), the old one keeps working for
     * API_KEY_ROTATION_OVERLAP (24 hours) and is refused after that, and the workspace's owner is e-mailed through
     * the e-mail module's exactly-once send, queued in the same transaction under `api_key_rotated:<old key id>`.
     */
    async rotate(auth: AuthContext, id: string, now = new Date()) {
      if (!auth.userId) throw new Error('a key is rotated by a dashboard user');
      const userId = auth.userId;
      const { old, created, workflowId } = await sequelize.transaction(async (transaction) => {
        const old = await ApiKey.findOne({ where: { id, ...tenantWhere(auth) }, lock: transaction.LOCK.UPDATE, transaction });
        if (!old) throw notFound('API key');
        checkRotatable(old);
        const created = await issueKey(transaction, auth, { name: old.name, environment: old.environment, access: old.access }, { apiKeyId: null, userId, source: 'dashboard' });
        const expiresAt = rotationDeadline(now, config.API_KEY_ROTATION_OVERLAP);
        await old.update({ expiresAt, replacedByKeyId: created.key.id }, { transaction });
        await audit(transaction, auth, {
          action: 'api_key.rotated',
          ...auditActor(auth),
          targetType: 'api_key',
          targetId: old.id,
          data: { replacedBy: created.key.id, expiresAt: expiresAt.toISOString() },
        });
        const owner = await findOwner(auth.accountId, transaction);
        // A workspace created without an owner (docs/decisions/dashboard.md) has nobody to tell.
        const queued = owner
          ? await emails.queue(transaction, auth, {
              kind: 'api_key_rotated',
              businessKey: `api_key_rotated:${old.id}`,
              to: owner.email,
              data: {
                keyName: old.name,
                keyHint: `${old.prefix}…${old.last4}`,
                environment: old.environment,
                rotatedBy: (await findUserEmail(userId, transaction)) ?? userId,
                rotatedAt: noticeTime(now),
                oldValueExpiresAt: noticeTime(expiresAt),
                keysUrl: `${config.PUBLIC_BASE_URL}/dashboard/developers/api-keys`,
              },
            })
          : { workflowId: null };
        return { old, created, workflowId: queued.workflowId };
      });
      // As for a revocation: this process reads the deadline on its next request; the trigger tells the others.
      cache.dropKey(old.keyHash);
      if (workflowId) await startRecordedNow(deps, workflowId);
      return { rotated: toApiKeyDto(old), created: { ...toApiKeyDto(created.key), value: created.value } };
    },

    async revoke(auth: AuthContext, id: string) {
      const key = await sequelize.transaction(async (transaction) => {
        const key = await ApiKey.findOne({
          where: { id, ...tenantWhere(auth) },
          lock: transaction.LOCK.UPDATE,
          transaction,
        });
        if (!key) throw notFound('API key');
        if (!key.revokedAt) {
          await key.update({ revokedAt: new Date() }, { transaction });
          await audit(transaction, auth, {
            action: 'api_key.revoked',
            ...auditActor(auth),
            targetType: 'api_key',
            targetId: key.id,
          });
        }
        return key;
      });
      // After the commit, before the answer: this process refuses the key from its next request on (the
      // trigger's notification tells the other processes, and this one again).
      cache.dropKey(key.keyHash);
      return toApiKeyDto(key);
    },
  };
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>;

/**
 * An operator's revoke (`npm run cli -- keys revoke key_…`): by id in any workspace, audited with no actor and
 * `source: "cli"`. The API processes hear of it through the revocation trigger's notification, as they do of a
 * revoke through the API; revoking a revoked key changes nothing.
 */
export async function revokeKeyAsOperator(sequelize: Sequelize, id: string) {
  const key = await sequelize.transaction(async (transaction) => {
    const key = await ApiKey.findOne({ where: { id }, lock: transaction.LOCK.UPDATE, transaction });
    if (!key) throw notFound('API key');
    if (!key.revokedAt) {
      await key.update({ revokedAt: new Date() }, { transaction });
      await audit(transaction, { accountId: key.accountId, environment: key.environment }, {
        action: 'api_key.revoked',
        actorApiKeyId: null,
        targetType: 'api_key',
        targetId: key.id,
        data: { source: 'cli' },
      });
    }
    return key;
  });
  return toApiKeyDto(key);
}
