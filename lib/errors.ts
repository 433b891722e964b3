/**
 * Every error code of both API documents, plus the transport-level ones this service adds. Code anywhere
 * (API, domain, activities) throws AppError with one of these; only the API's error handler turns a code
 * into an HTTP status (api/errors.ts), so the worker can throw the same typed errors.
 */
export const ERROR_CODES = [
  'VALIDATION_ERROR',
  'FILE_TOO_LARGE',
  'AUTHENTICATION_REQUIRED',
  'UNAUTHORIZED',
  'INVALID_API_KEY',
  'FORBIDDEN',
  'INSUFFICIENT_PERMISSIONS',
  'QUOTA_EXCEEDED',
  'RESOURCE_NOT_FOUND',
  'NOT_FOUND',
  'LABEL_NOT_AVAILABLE',
  'ROUTE_NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'fulfillment_module_disabled',
  'INVALID_STATE',
  'INSUFFICIENT_STOCK',
  'CODE_EXISTS',
  'IDEMPOTENCY_KEY_REUSED',
  'IDEMPOTENCY_KEY_IN_USE',
  'INSUFFICIENT_BALANCE',
  'BANK_ACCOUNT_NOT_SET',
  'MOVED',
  'REQUEST_TIMEOUT',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'SUBSCRIPTION_INACTIVE',
  'ACTIVATION_LIMIT_REACHED',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
  'PARTNER_UNAVAILABLE',
  'SERVICE_UNAVAILABLE',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorDetail {
  field?: string;
  message: string;
  [key: string]: unknown;
}

export interface AppErrorOptions {
  /**
   * The documented exception where a code answers as a conflict, e.g. `409 VALIDATION_ERROR` for a duplicate
   * customer email or workspace slug; the HTTP layer decides what that means on the wire.
   */
  conflict?: boolean;
}

export class AppError extends Error {
  readonly conflict: boolean;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[] | Record<string, unknown>,
    options: AppErrorOptions = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.conflict = options.conflict ?? false;
  }
}

export const validationError = (message: string, details?: ErrorDetail[]) => new AppError('VALIDATION_ERROR', message, details);

export const notFound = (what = 'Resource') => new AppError('RESOURCE_NOT_FOUND', `${what} not found`);

export const forbidden = (message = 'This key may not perform this request') => new AppError('FORBIDDEN', message);

export const invalidState = (message: string) => new AppError('INVALID_STATE', message);

export const quotaExceeded = (message: string) => new AppError('QUOTA_EXCEEDED', message);

export const internalError = () => new AppError('INTERNAL_ERROR', 'An unexpected error occurred');
