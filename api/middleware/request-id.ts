import type { RequestHandler } from 'express';
import { newId } from '../../lib/ids';
import { withLogContext } from '../../lib/log-context';

/**
 * Gives every request a `req_<ulid>` id, echoed in `X-Request-Id`, the envelope's meta and every log line (the
 * log context), and carried into the workflows the request starts (lib/temporal-interceptors.ts).
 */
export const requestId: RequestHandler = (req, res, next) => {
  req.requestId = newId('req');
  res.setHeader('X-Request-Id', req.requestId);
  withLogContext({ requestId: req.requestId }, next);
};
