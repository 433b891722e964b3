import type { Request, RequestHandler, Response } from 'express';
import { AppError } from '../../lib/errors';
import { sendError } from '../envelope';

interface Deadline {
  timer?: NodeJS.Timeout;
  /** The route has all of the body it reads; from here the handler's own time is not this deadline's business. */
  bodyRead: boolean;
}

const deadlines = new WeakMap<Request, Deadline>();

function arm(req: Request, res: Response, deadline: Deadline, ms: number): void {
  clearTimeout(deadline.timer);
  deadline.timer = setTimeout(() => expire(req, res, deadline), ms).unref();
}

function expire(req: Request, res: Response, deadline: Deadline): void {
  deadline.timer = undefined;
  if (req.complete) return;
  // Answered early (a refused key, a route that reads no body) while the client still sends: stop waiting for it.
  if (res.headersSent) {
    req.socket.destroy();
    return;
  }
  if (deadline.bodyRead) return;
  res.setHeader('Connection', 'close');
  sendError(req, res, new AppError('REQUEST_TIMEOUT', 'The request body did not arrive in time'));
}

/**
 * How long a client may take to send a request's body, counted from its headers: `408 REQUEST_TIMEOUT` and
 * the connection closed when it passes. Per request, because Node's `server.requestTimeout` is one value for
 * every route and only the upload route may take an hour (`extendDeadline`). A request that is complete on
 * arrival (no body, or all of it in the first packets) costs no timer. After an early answer the rest of a
 * body is drained by Node, within the same deadline.
 */
export function requestDeadline(ms: number): RequestHandler {
  return (req, res, next) => {
    if (req.complete) return next();
    const deadline: Deadline = { bodyRead: false };
    deadlines.set(req, deadline);
    arm(req, res, deadline, ms);
    res.once('close', () => {
      if (req.complete) clearTimeout(deadline.timer);
      // A handler that outlived the deadline without reading the body: the drain gets its own deadline.
      else if (!deadline.timer) arm(req, res, deadline, ms);
    });
    next();
  };
}

/** Gives the rest of this request `ms` from now instead; for the upload route, once the caller is authenticated. */
export function extendDeadline(req: Request, res: Response, ms: number): void {
  const deadline = deadlines.get(req);
  if (deadline) arm(req, res, deadline, ms);
}

/** The route has read the body it needs (parsed JSON, or none): a slow handler is not cut by the deadline. */
export function markBodyRead(req: Request): void {
  const deadline = deadlines.get(req);
  if (!deadline) return;
  deadline.bodyRead = true;
  if (req.complete) clearTimeout(deadline.timer);
}
