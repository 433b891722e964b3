import type { ErrorRequestHandler, RequestHandler } from 'express';
import { sendError } from '../envelope';
import { AppError, internalError } from '../../lib/errors';
import { httpStatusOf } from '../errors';

/** Turns transport failures (a body-parser error, an undecodable path) into documented errors instead of HTML defaults. */
function fromTransport(err: unknown): AppError | undefined {
  // The router decodes path parameters and fails on a malformed percent-encoding (`%FF`) with a URIError.
  if (err instanceof URIError) return new AppError('VALIDATION_ERROR', 'The URL path is not valid percent-encoded UTF-8');
  switch ((err as { type?: string }).type) {
    case 'entity.parse.failed':
      return new AppError('VALIDATION_ERROR', 'The request body is not valid JSON');
    case 'request.aborted':
      // The connection closed mid-body: the client went away, or the request deadline answered it.
      return new AppError('VALIDATION_ERROR', 'The connection closed before the request body arrived');
    case 'entity.too.large':
      return new AppError('PAYLOAD_TOO_LARGE', 'The request body is larger than this endpoint accepts');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as UTF-8 JSON');
    default:
      return undefined;
  }
}

/** SQLSTATE classes of a connection that went away: 08 (connection exception), 57P (the server shut down or restarts). */
const LOST_CONNECTION_STATE = /^(08|57P0[1-3])/;
const LOST_CONNECTION_MESSAGE = /Connection terminated|connection is closed|Client has encountered a connection error|ECONNRESET|ECONNREFUSED/i;

/**
 * The database went away under the request (a restart, a failover, a terminated backend): a retryable `503`, not
 * a `500`. Whatever the request's transaction held was rolled back with the connection.
 */
function fromDatabase(err: unknown): AppError | undefined {
  const { name, parent } = err as { name?: string; parent?: { code?: string; message?: string } };
  const lost =
    name === 'SequelizeConnectionError' ||
    name === 'SequelizeConnectionRefusedError' ||
    name === 'SequelizeConnectionAcquireTimeoutError' ||
    (parent?.code !== undefined && LOST_CONNECTION_STATE.test(parent.code)) ||
    (name?.startsWith('Sequelize') === true && LOST_CONNECTION_MESSAGE.test(parent?.message ?? '')) ||
    (err instanceof Error && err.message === 'Connection terminated unexpectedly');
  return lost ? new AppError('SERVICE_UNAVAILABLE', 'The database is unavailable; nothing was changed. Retry shortly') : undefined;
}

export const routeNotFound: RequestHandler = (req) => {
  throw new AppError('ROUTE_NOT_FOUND', `No route for ${req.method} ${req.path}`);
};

/** The one place an error becomes a response: known errors keep their code; anything else is a logged 500. */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  const known = err instanceof AppError ? err : (fromTransport(err) ?? fromDatabase(err));
  if (!known) req.log.error({ err }, 'unhandled error');
  else if (httpStatusOf(known) >= 500) req.log.error({ err }, known.message);
  // Already answered, e.g. 408 by the request deadline while an upload was still streaming.
  if (res.headersSent) {
    res.end();
    return;
  }
  if (known?.code === 'SERVICE_UNAVAILABLE') res.setHeader('Retry-After', '1');
  sendError(req, res, known ?? internalError());
};
