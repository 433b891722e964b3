import { randomUUID } from 'node:crypto';
import { Agent } from 'node:https';
import { loadEndpointForAttempt, recordAttempt } from '../domain/webhooks';
import { recordMetric } from '../lib/metrics';
import { SIGNATURE_HEADER, signWebhookPayload } from '../lib/webhooks/signature';
import { createWebhookAgent, postWebhook } from '../lib/webhooks/send';
import type { AttemptInput, AttemptResult } from '../workflows/messages';
import type { WebhookActivities } from './contracts/webhooks';
import type { ActivityDeps } from './deps';

/** Whole-request deadline of one webhook POST (connect, TLS, response). */
export const WEBHOOK_HTTP_TIMEOUT_MS = 10_000;
export const WEBHOOK_USER_AGENT = 'CommerceService-Webhooks/1.0';

export function createWebhookActivities({ sequelize, box, config, logger, webhookAgent }: ActivityDeps): WebhookActivities {
  const agent = webhookAgent ?? createWebhookAgent();
  // Keep-alive sockets are pooled by host and port, and the address rule is applied only when a socket is
  // opened: the service's own endpoints, allowed private targets, get a pool of their own so a merchant
  // send can never reuse a socket that was opened to a private address.
  const trustedAgent = new Agent(agent.options);

  return {
    /**
     * One delivery attempt: checks the endpoint still exists, is active and has not been disabled since
     * fan-out; signs with its current secret at send time; POSTs; records the attempt and the failure count.
     * Idempotent per attempt key: an attempt already in the log is answered from it without sending. Every
     * send carries a delivery id of its own, so a re-run after a crash that cut a send short is told apart.
     */
    async deliverWebhookAttempt(input: AttemptInput): Promise<AttemptResult> {
      const attemptStartedAt = Date.now();
      const endpoint = await loadEndpointForAttempt(sequelize, {
        endpointId: input.endpointId,
        accountId: input.accountId,
        environment: input.environment,
        attemptKey: input.attemptKey,
      });
      if (!endpoint) return { outcome: 'endpoint_gone', statusCode: null };
      if (endpoint.recordedStatus) {
        return { outcome: endpoint.recordedStatus === 'succeeded' ? 'succeeded' : 'failed', statusCode: null };
      }
      if (!endpoint.active || endpoint.deliveryEpoch !== input.endpointEpoch) return { outcome: 'endpoint_disabled', statusCode: null };

      const secret = box.open(endpoint.secretSealed);
      const deliveryId = randomUUID();
      const timestamp = Math.floor(Date.now() / 1000);
      const result = await postWebhook(
        {
          url: input.url,
          body: input.body,
          headers: {
            'Content-Type': 'application/json',
            'User-Agent': WEBHOOK_USER_AGENT,
            [SIGNATURE_HEADER]: signWebhookPayload(input.body, secret, timestamp),
            'X-Service-Event-Id': input.eventId,
            'X-Service-Delivery-Id': deliveryId,
          },
        },
        {
          // The service's own endpoints have operator-configured targets, trusted like the rest of the configuration.
          agent: endpoint.systemKind !== null ? trustedAgent : agent,
          allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_URLS || endpoint.systemKind !== null,
          timeoutMs: WEBHOOK_HTTP_TIMEOUT_MS,
        },
      );
      recordMetric.webhookAttempt(result.ok ? 'succeeded' : 'failed');

      const recorded = await recordAttempt(sequelize, {
        accountId: input.accountId,
        environment: input.environment,
        endpointId: input.endpointId,
        eventId: input.eventId,
        eventType: input.eventType,
        attempt: input.attempt,
        attemptKey: input.attemptKey,
        deliveryId,
        url: input.url,
        ok: result.ok,
        statusCode: result.statusCode,
        durationMs: result.durationMs,
        error: result.error,
        scheduledAt: new Date(attemptStartedAt),
        retryDelayMs: input.retryDelayMs,
      });
      if (!result.ok) {
        logger.info(
          { eventId: input.eventId, endpointId: input.endpointId, attempt: input.attempt, statusCode: result.statusCode, error: result.error },
          'webhook attempt failed',
        );
      }
      if (result.ok) return { outcome: 'succeeded', statusCode: result.statusCode };
      if (!recorded.endpointExists) return { outcome: 'endpoint_gone', statusCode: result.statusCode };
      return { outcome: recorded.endpointDisabled ? 'endpoint_disabled' : 'failed', statusCode: result.statusCode };
    },
  };
}
