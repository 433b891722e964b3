import type { components } from './generated/schema';

/** Every `error.code` the API answers with, as its OpenAPI document lists them (lib/errors.ts, ERROR_CODES). */
export type CommerceErrorCode = components['schemas']['ErrorEnvelope']['error']['code'];

/**
 * The SDK's own codes: `NETWORK_ERROR` when no answer came back after every retry (status 0, the fetch error as
 * `cause`), `UNKNOWN_ERROR` when the answer was not the API's envelope (a proxy's page, a public route's plain 429).
 */
export type SdkErrorCode = 'NETWORK_ERROR' | 'UNKNOWN_ERROR';

/**
 * A request the API refused, or that failed every retry: the envelope's `error` with the HTTP status and the request
 * id (quote it to the operator: it is in every log line). `details` is the envelope's, e.g. the fields a
 * `VALIDATION_ERROR` names.
 */
export class CommerceError extends Error {
  override readonly name = 'CommerceError';

  constructor(
    readonly status: number,
    readonly code: CommerceErrorCode | SdkErrorCode,
    message: string,
    readonly requestId: string | null,
    readonly details?: unknown,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** Narrows `err` to a CommerceError, of one of `codes` when given. */
  static is<C extends CommerceErrorCode | SdkErrorCode>(err: unknown, ...codes: C[]): err is CommerceError & { code: C } {
    return err instanceof CommerceError && (codes.length === 0 || (codes as string[]).includes(err.code));
  }
}

interface ErrorBody {
  error?: { code?: unknown; message?: unknown; details?: unknown } | null;
  meta?: { requestId?: unknown } | null;
}

/** The CommerceError of a non-2xx answer whose body (parsed JSON, or text) is `body`. */
export function errorFromResponse(response: Response, body: unknown): CommerceError {
  const envelope = typeof body === 'object' && body !== null ? (body as ErrorBody) : {};
  const error = envelope.error ?? undefined;
  const requestId = typeof envelope.meta?.requestId === 'string' ? envelope.meta.requestId : response.headers.get('x-request-id');
  if (typeof error?.code === 'string') {
    return new CommerceError(response.status, error.code as CommerceErrorCode, typeof error.message === 'string' ? error.message : error.code, requestId, error.details);
  }
  const text = typeof body === 'string' && body.length > 0 ? `: ${body.slice(0, 200)}` : '';
  return new CommerceError(response.status, 'UNKNOWN_ERROR', `HTTP ${response.status}${text}`, requestId);
}
