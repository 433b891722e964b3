/**
 * The Commerce API's TypeScript SDK: a typed client over the types generated from the OpenAPI document
 * (generated/schema.ts, `npm run sdk:generate`), errors typed by code, and the webhook signature verifier.
 */
export {
  createCommerceClient,
  type CommerceClient,
  type CommerceClientOptions,
  type ListItem,
  type ListParams,
  type ListPath,
  type Page,
  type RawCommerceClient,
  type ResponseData,
  type SuccessEnvelope,
} from './client';
export { CommerceError, type CommerceErrorCode, type SdkErrorCode } from './errors';
export { IDEMPOTENCY_HEADER, retryAfterMs, type RetryOptions } from './transport';
export type { components, operations, paths } from './generated/schema';
/** Verify a webhook delivery's `X-Service-Signature` over its raw body, as the service signs it. */
export {
  DEFAULT_TOLERANCE_SECONDS,
  SIGNATURE_HEADER,
  signWebhookPayload,
  verifyWebhookSignature,
  type VerifyWebhookOptions,
  type WebhookVerification,
  type WebhookVerificationFailure,
} from '../../lib/webhooks/signature';
