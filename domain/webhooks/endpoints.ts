import { Op, type Transaction } from 'sequelize';
import { lockSystemWebhookEndpoints } from '../../db/locks';
import { dropPendingRetries } from '../../db/webhook-deliveries';
import { WebhookDeliveryAttempt, WebhookEndpoint, type SystemEndpointKind } from '../../db/models';
import { ENVIRONMENTS } from '../../db/models/common';
import { audit } from '../../db/outbox';
import { listPage, type PageRequest } from '../../db/pagination';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import type { Config } from '../../lib/config';
import { invalidState, notFound, validationError } from '../../lib/errors';
import type { EventType } from '../../lib/event-types';
import { newId } from '../../lib/ids';
import { serialiseEnvelope } from '../../lib/webhooks/envelope';
import { SECRET_PREFIX, generateWebhookSecret } from '../../lib/webhooks/signature';
import { cancelEndpointDeliveries } from '../../lib/webhooks/stop-deliveries';
import { checkTargetUrl, type TargetCheck } from '../../lib/webhooks/targets';
import { auditActor, type AuthContext } from '../auth-context';
import { enforcePlanCap } from '../plan-caps';
import type { ServiceDeps } from '../service-deps';
import type { CreateWebhookEndpointBody, SendTestEventBody, UpdateWebhookEndpointBody } from './inputs';
import { retryDeliveryNow } from './retry';

export const REDACTED_SECRET = `${SECRET_PREFIX}***`;

const PRODUCT_EVENTS: EventType[] = ['service.product.created.v1', 'service.product.updated.v1', 'service.product.archived.v1'];
const VARIANT_EVENTS: EventType[] = ['service.variant.created.v1', 'service.variant.updated.v1', 'service.variant.archived.v1'];

/**
 * The service's own endpoints (document 2). Each lives once per workspace and environment, carries a
 * neutral outbound tag in its description, and is reconciled on every module check: created when missing,
 * re-enabled and pointed at the configured URL, or removed when its module is off. Until its URL is
 * configured it is listed inactive at a placeholder in the reserved `.invalid` domain, which never resolves.
 */
interface SystemEndpointSpec {
  description: string;
  events: EventType[];
  url(config: Config): string | undefined;
  placeholder: string;
  wanted(flags: { fulfillment: boolean }): boolean;
}

export const SYSTEM_ENDPOINTS: Record<SystemEndpointKind, SystemEndpointSpec> = {
  catalog_sync: {
    description: '[outbound:catalog-sync] Catalogue sync to the fulfillment partner (managed by the service)',
    events: [...PRODUCT_EVENTS, ...VARIANT_EVENTS],
    url: (config) => config.FULFILLMENT_SYNC_URL,
    placeholder: 'https://catalog-sync.invalid/',
    wanted: (flags) => flags.fulfillment,
  },
  product_mirror: {
    description: '[outbound:product-mirror] Product mirror to the discount service (managed by the service)',
    events: PRODUCT_EVENTS,
    url: (config) => config.DISCOUNT_SYNC_URL,
    placeholder: 'https://product-mirror.invalid/',
    wanted: () => true,
  },
};

type EndpointRow = Pick<WebhookEndpoint, 'id' | 'accountId' | 'url' | 'events' | 'description' | 'active' | 'createdAt' | 'updatedAt'>;

export function toWebhookEndpointDto(endpoint: EndpointRow, secret?: string) {
  return {
    id: endpoint.id,
    accountId: endpoint.accountId,
    url: endpoint.url,
    events: endpoint.events,
    description: endpoint.description,
    active: endpoint.active,
    secret: secret ?? REDACTED_SECRET,
    createdAt: endpoint.createdAt.toISOString(),
    updatedAt: endpoint.updatedAt.toISOString(),
  };
}

type AttemptRow = Pick<
  WebhookDeliveryAttempt,
  'id' | 'accountId' | 'eventId' | 'eventType' | 'attempt' | 'deliveryId' | 'url' | 'status' | 'statusCode' | 'durationMs' | 'error' | 'nextAttemptAt' | 'createdAt'
>;

function toAttemptDto(row: AttemptRow) {
  return {
    id: row.id,
    accountId: row.accountId,
    eventId: row.eventId,
    type: row.eventType,
    attempt: row.attempt,
    deliveryId: row.deliveryId,
    url: row.url,
    status: row.status,
    statusCode: row.statusCode,
    durationMs: row.durationMs,
    error: row.error,
    nextAttemptAt: row.nextAttemptAt ? row.nextAttemptAt.toISOString() : null,
    createdAt: row.createdAt.toISOString(),
  };
}

const systemManaged = () =>
  invalidState('This endpoint is managed by the service and cannot be edited or deleted; it is reconciled on the next module check');

const scoped = (auth: Tenant, id: string) => ({ id, ...tenantWhere(auth) });

export function createWebhookEndpointService({
  sequelize,
  config,
  box,
  temporal,
  starters,
  logger,
}: Pick<ServiceDeps, 'sequelize' | 'config' | 'box' | 'temporal' | 'starters' | 'logger'>) {
  /** After the commit, not awaited by the request: the retries already stop on their own (cancelEndpointDeliveries). */
  function cancelPendingRetries(accountId: string, endpointId: string): void {
    cancelEndpointDeliveries(temporal, { accountId, endpointId }, logger).catch((err: unknown) =>
      logger.warn({ err, endpointId }, 'could not look up the webhook deliveries to cancel'),
    );
  }

  /** The registration-time URL check (may resolve DNS for seconds): run it before any transaction or row lock. */
  const checkTarget = (url: string): Promise<TargetCheck> => checkTargetUrl(url, config.WEBHOOK_ALLOW_PRIVATE_URLS);

  const refusedTarget = (reason: string) => validationError(`url: ${reason}`, [{ field: 'url', message: reason }]);

  async function lockEndpoint(tx: Transaction, auth: Tenant, id: string): Promise<WebhookEndpoint> {
    const endpoint = await WebhookEndpoint.findOne({ where: scoped(auth, id), lock: tx.LOCK.UPDATE, transaction: tx });
    if (!endpoint) throw notFound('Webhook endpoint');
    if (endpoint.systemKind) throw systemManaged();
    return endpoint;
  }

  function desiredSystemEndpoints(flags: { fulfillment: boolean }) {
    return (Object.entries(SYSTEM_ENDPOINTS) as [SystemEndpointKind, SystemEndpointSpec][])
      .filter(([, spec]) => spec.wanted(flags))
      .map(([kind, spec]) => {
        const configured = spec.url(config);
        return { kind, url: configured ?? spec.placeholder, active: configured !== undefined, events: spec.events, description: spec.description };
      });
  }

  const sameArray = (a: string[], b: string[]) => a.length === b.length && a.every((v, i) => v === b[i]);

  type DesiredSystemEndpoint = ReturnType<typeof desiredSystemEndpoints>[number];

  /** Whether a system endpoint row already has everything the reconciliation would set. */
  const matches = (row: Pick<WebhookEndpoint, 'url' | 'active' | 'description' | 'events'>, want: DesiredSystemEndpoint) =>
    row.url === want.url && row.active === want.active && row.description === want.description && sameArray(row.events, want.events);

  /** Brings the system endpoints of both environments in line with the module flags and configuration. */
  async function syncSystemEndpoints(accountId: string, flags: { fulfillment: boolean }): Promise<void> {
    const desired = desiredSystemEndpoints(flags);
    const inSync = (rows: WebhookEndpoint[]) =>
      rows.length === desired.length * ENVIRONMENTS.length &&
      rows.every((row) => {
        const want = desired.find((d) => d.kind === row.systemKind);
        return want !== undefined && matches(row, want);
      });
    // The fast path reads only the columns the comparison needs (no sealed secrets).
    const current = await WebhookEndpoint.findAll({
      where: { accountId, systemKind: { [Op.ne]: null } },
      attributes: ['systemKind', 'url', 'active', 'description', 'events'],
    });
    if (inSync(current)) return;

    await sequelize.transaction(async (tx) => {
      await lockSystemWebhookEndpoints(sequelize, tx, accountId);
      const rows = await WebhookEndpoint.findAll({ where: { accountId, systemKind: { [Op.ne]: null } }, transaction: tx });
      for (const environment of ENVIRONMENTS) {
        const tenant = { accountId, environment };
        for (const want of desired) {
          const row = rows.find((r) => r.environment === environment && r.systemKind === want.kind);
          if (!row) {
            const created = await WebhookEndpoint.create(
              { id: newId('whe'), ...tenant, url: want.url, events: want.events, description: want.description, active: want.active, secretSealed: box.seal(generateWebhookSecret()), systemKind: want.kind },
              { transaction: tx },
            );
            await audit(tx, tenant, { action: 'webhook_endpoint.created', actorApiKeyId: null, targetType: 'webhook_endpoint', targetId: created.id, data: { system: want.kind } });
          } else if (!matches(row, want)) {
            const disabling = !want.active && row.active;
            await row.update(
              {
                url: want.url,
                events: want.events,
                description: want.description,
                active: want.active,
                ...(want.active && !row.active ? { consecutiveFailures: 0 } : {}),
                ...(disabling ? { deliveryEpoch: row.deliveryEpoch + 1 } : {}),
              },
              { transaction: tx },
            );
            if (disabling) await dropPendingRetries(sequelize, tx, row.id);
          }
        }
        for (const row of rows.filter((r) => r.environment === environment && !desired.some((d) => d.kind === r.systemKind))) {
          await row.destroy({ transaction: tx });
          await audit(tx, tenant, { action: 'webhook_endpoint.deleted', actorApiKeyId: null, targetType: 'webhook_endpoint', targetId: row.id, data: { system: row.systemKind } });
        }
      }
    });
  }

  return {
    syncSystemEndpoints,

    async list(auth: AuthContext, page: PageRequest) {
      await syncSystemEndpoints(auth.accountId, { fulfillment: auth.account.fulfillmentEnabled });
      return listPage(sequelize, WebhookEndpoint, { tenant: auth, page, idPrefix: 'whe', toDto: (row) => toWebhookEndpointDto(row) });
    },

    async retrieve(auth: AuthContext, id: string) {
      const endpoint = await WebhookEndpoint.findOne({ where: scoped(auth, id) });
      if (!endpoint) throw notFound('Webhook endpoint');
      return toWebhookEndpointDto(endpoint);
    },

    async create(auth: AuthContext, input: CreateWebhookEndpointBody) {
      const check = await checkTarget(input.url);
      if (!check.ok) throw refusedTarget(check.reason);
      const secret = generateWebhookSecret();
      const endpoint = await sequelize.transaction(async (tx) => {
        await enforcePlanCap(tx, auth, 'webhookEndpoints');
        const created = await WebhookEndpoint.create(
          {
            id: newId('whe'),
            ...tenantWhere(auth),
            url: input.url,
            events: input.events,
            description: input.description ?? null,
            active: input.active,
            secretSealed: box.seal(secret),
          },
          { transaction: tx },
        );
        await audit(tx, auth, {
          action: 'webhook_endpoint.created',
          ...auditActor(auth),
          targetType: 'webhook_endpoint',
          targetId: created.id,
          data: { url: created.url, events: created.events, active: created.active },
        });
        return created;
      });
      return toWebhookEndpointDto(endpoint, secret);
    },

    async update(auth: AuthContext, id: string, input: UpdateWebhookEndpointBody) {
      // Checked before the transaction so no DNS lookup holds the row lock (which failure recording also takes);
      // the verdict is applied after the lock, so a missing or managed endpoint still answers first, and an
      // unchanged URL is never refused.
      const check = input.url !== undefined ? await checkTarget(input.url) : null;
      let disabled = false;
      const updated = await sequelize.transaction(async (tx) => {
        const endpoint = await lockEndpoint(tx, auth, id);
        if (check && !check.ok && input.url !== endpoint.url) throw refusedTarget(check.reason);
        const changes: Partial<Pick<WebhookEndpoint, 'url' | 'events' | 'description' | 'active' | 'consecutiveFailures' | 'deliveryEpoch' | 'secretSealed'>> = {};
        if (input.url !== undefined) changes.url = input.url;
        if (input.events !== undefined) changes.events = input.events;
        if (input.description !== undefined) changes.description = input.description;
        if (input.active !== undefined && input.active !== endpoint.active) {
          changes.active = input.active;
          // Re-enabling starts a fresh failure streak; disabling drops every pending retry (new epoch).
          if (input.active) changes.consecutiveFailures = 0;
          else changes.deliveryEpoch = endpoint.deliveryEpoch + 1;
          disabled = !input.active;
        }
        const secret = input.rotateSecret ? generateWebhookSecret() : undefined;
        if (secret) changes.secretSealed = box.seal(secret);
        await endpoint.update(changes, { transaction: tx });
        if (disabled) await dropPendingRetries(sequelize, tx, id);
        const fields = Object.keys(input).filter((f) => f !== 'rotateSecret');
        if (fields.length > 0) {
          await audit(tx, auth, { action: 'webhook_endpoint.updated', ...auditActor(auth), targetType: 'webhook_endpoint', targetId: id, data: { fields } });
        }
        if (secret) {
          await audit(tx, auth, { action: 'webhook_endpoint.secret_rotated', ...auditActor(auth), targetType: 'webhook_endpoint', targetId: id });
        }
        return toWebhookEndpointDto(endpoint, secret);
      });
      if (disabled) cancelPendingRetries(auth.accountId, id);
      return updated;
    },

    /** Deletes the endpoint and its delivery log; pending retries are canceled, and would find it gone anyway. */
    async remove(auth: AuthContext, id: string) {
      const removed = await sequelize.transaction(async (tx) => {
        const endpoint = await lockEndpoint(tx, auth, id);
        await endpoint.destroy({ transaction: tx });
        await audit(tx, auth, { action: 'webhook_endpoint.deleted', ...auditActor(auth), targetType: 'webhook_endpoint', targetId: id, data: { url: endpoint.url } });
        return { id, accountId: auth.accountId, deleted: true as const };
      });
      cancelPendingRetries(auth.accountId, id);
      return removed;
    },

    async listDeliveries(auth: AuthContext, id: string, page: PageRequest) {
      const endpoint = await WebhookEndpoint.findOne({ where: scoped(auth, id), attributes: ['id'] });
      if (!endpoint) throw notFound('Webhook endpoint');
      return listPage(sequelize, WebhookDeliveryAttempt, { tenant: auth, where: { endpointId: id }, page, idPrefix: 'wha', toDto: toAttemptDto });
    },

    /**
     * Retries the delivery of `eventId` to this endpoint now, skipping the rest of its wait: the endpoint and the
     * delivery (its log) are the caller's tenant's, or 404.
     */
    async retryDelivery(auth: AuthContext, id: string, eventId: string) {
      const endpoint = await WebhookEndpoint.findOne({ where: scoped(auth, id), attributes: ['id'] });
      if (!endpoint) throw notFound('Webhook endpoint');
      const logged = await WebhookDeliveryAttempt.findOne({ where: { ...tenantWhere(auth), endpointId: id, eventId }, attributes: ['id'] });
      if (!logged) throw notFound('Webhook delivery');
      return retryDeliveryNow(temporal, auth, { endpointId: id, eventId });
    },

    /** A synthetic `evt_test_` event to this endpoint alone, through the same delivery workflow as real events. */
    async sendTest(auth: AuthContext, id: string, input: SendTestEventBody) {
      const endpoint = await WebhookEndpoint.findOne({ where: scoped(auth, id) });
      if (!endpoint) throw notFound('Webhook endpoint');
      if (!endpoint.active) throw invalidState('The endpoint is disabled; enable it before sending a test event');
      const type = input.type ?? endpoint.events[0] ?? 'service.product.created.v1';
      const eventId = newId('evt').replace(/^evt_/, 'evt_test_');
      const createdAt = new Date().toISOString();
      await starters.webhookDelivery({
        eventId,
        eventType: type,
        accountId: auth.accountId,
        environment: auth.environment,
        endpointId: endpoint.id,
        endpointEpoch: endpoint.deliveryEpoch,
        url: endpoint.url,
        body: serialiseEnvelope({
          id: eventId,
          type,
          createdAt,
          accountId: auth.accountId,
          data: { object: 'test_event', message: 'A test event sent from the API or the dashboard; it carries no real data.' },
        }),
        retrySchedule: config.WEBHOOK_RETRY_SCHEDULE,
      });
      return { id: eventId, accountId: auth.accountId, type, endpointId: endpoint.id, createdAt };
    },
  };
}

export type WebhookEndpointService = ReturnType<typeof createWebhookEndpointService>;
