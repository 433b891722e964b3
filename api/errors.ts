import { AppError, type ErrorCode } from '../lib/errors';

/** The HTTP status of every error code: the one place a domain error becomes a wire status. */
export const HTTP_STATUS: Record<ErrorCode, number> = {
  VALIDATION_ERROR: 400,
  FILE_TOO_LARGE: 400,
  AUTHENTICATION_REQUIRED: 401,
  UNAUTHORIZED: 401,
  INVALID_API_KEY: 401,
  FORBIDDEN: 403,
  INSUFFICIENT_PERMISSIONS: 403,
  QUOTA_EXCEEDED: 403,
  RESOURCE_NOT_FOUND: 404,
  NOT_FOUND: 404,
  LABEL_NOT_AVAILABLE: 404,
  ROUTE_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  fulfillment_module_disabled: 409,
  INVALID_STATE: 409,
  INSUFFICIENT_STOCK: 409,
  CODE_EXISTS: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  IDEMPOTENCY_KEY_IN_USE: 409,
  INSUFFICIENT_BALANCE: 409,
  BANK_ACCOUNT_NOT_SET: 409,
  MOVED: 410,
  REQUEST_TIMEOUT: 408,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  SUBSCRIPTION_INACTIVE: 422,
  ACTIVATION_LIMIT_REACHED: 422,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  // The fulfillment partner did not answer (down, timed out, 5xx): nothing was changed; retry later.
  PARTNER_UNAVAILABLE: 502,
  // The database went away under the request (its connection ended, a failover): nothing was changed; retry (Retry-After).
  SERVICE_UNAVAILABLE: 503,
};

export function httpStatusOf(err: AppError): number {
  return err.conflict ? 409 : HTTP_STATUS[err.code];
}
