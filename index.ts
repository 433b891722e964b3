/**
 * The package's public surface for webhook receivers: verify `X-Service-Signature` on the raw body
 * (and sign payloads the same way, for a receiver's own tests).
 * See docs/api-guide.md, "Receiving webhooks", for an Express example.
 */
export {
  DEFAULT_TOLERANCE_SECONDS,
  SIGNATURE_HEADER,
  signWebhookPayload,
  verifyWebhookSignature,
  type VerifyWebhookOptions,
  type WebhookVerification,
  type WebhookVerificationFailure,
} from './lib/webhooks/signature';
