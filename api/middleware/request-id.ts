import type { RequestHandler } from 'express';
import { newId } from '../../lib/ids';

/** Gives every request a `req_<ulid>` id, echoed in `X-Request-Id`, the envelope's meta and every log line. */
export const requestId: RequestHandler = (req, res, next) => {
  req.requestId = newId('req');
  res.setHeader('X-Request-Id', req.requestId);
  next();
};
