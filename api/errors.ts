/**
 * Every error code of both API documents (plus the transport-level ones this service adds), with its
 * HTTP status. Handlers throw ApiError; the error middleware renders it into the failure envelope.
 */
export const ERROR_STATUS = {
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
  fulfillment_module_disabled: 409,
  INVALID_STATE: 409,
  INSUFFICIENT_STOCK: 409,
  CODE_EXISTS: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  IDEMPOTENCY_KEY_IN_USE: 409,
  INSUFFICIENT_BALANCE: 409,
  BANK_ACCOUNT_NOT_SET: 409,
  MOVED: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  SUBSCRIPTION_INACTIVE: 422,
  ACTIVATION_LIMIT_REACHED: 422,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  field?: string;
  message: string;
  [key: string]: unknown;
}

export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[] | Record<string, unknown>,
    // Only for the documented exceptions, e.g. `409 VALIDATION_ERROR` for a duplicate customer email.
    status?: number,
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = status ?? ERROR_STATUS[code];
  }
}

export const validationError = (message: string, details?: ErrorDetail[]) =>
  new ApiError('VALIDATION_ERROR', message, details);

export const notFound = (what = 'Resource') => new ApiError('RESOURCE_NOT_FOUND', `${what} not found`);

export const forbidden = (message = 'This key may not perform this request') => new ApiError('FORBIDDEN', message);

export const invalidState = (message: string) => new ApiError('INVALID_STATE', message);

export const quotaExceeded = (message: string) => new ApiError('QUOTA_EXCEEDED', message);

export const internalError = () => new ApiError('INTERNAL_ERROR', 'An unexpected error occurred');
