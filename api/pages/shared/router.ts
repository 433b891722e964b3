import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import { AppError } from '../../../lib/errors';
import { httpStatusOf } from '../../errors';
import { ASSETS } from './assets';
import { renderMessage } from './render';

/** `/assets/:name` of a page mount: the stylesheet and favicon, not counted against any rate limit. */
export const serveAsset: RequestHandler = (req, res, next) => {
  const asset = ASSETS[String(req.params.name)];
  if (!asset) return next();
  res.set({ 'Content-Type': asset.contentType, 'Cache-Control': asset.cacheControl }).send(asset.body);
};

export function methodNotAllowed(allow: string): RequestHandler {
  return (req, res) => {
    res.setHeader('Allow', allow);
    throw new AppError('METHOD_NOT_ALLOWED', `${req.method} is not allowed here; allowed: ${allow}`);
  };
}

export type PageMessages = Record<number, { heading: string; message: string }>;

/** What every page mount says for these statuses, unless it says it its own way. */
export const COMMON_MESSAGES: PageMessages = {
  405: { heading: 'Not allowed', message: 'This address does not accept that kind of request.' },
  429: { heading: 'Too many requests', message: 'Please wait a minute, then reload the page.' },
};

export interface PageErrorOptions {
  footer: string;
  /** Each status's page; anything else is `fallback`. */
  messages: PageMessages;
  fallback: { heading: string; message: string };
  /** The log line of a 5xx. */
  failure: string;
}

/** Errors as pages, never the API's JSON envelope; anything unknown is logged and a plain 500 page. */
export function pageErrors({ footer, messages, fallback, failure }: PageErrorOptions): ErrorRequestHandler {
  return (err, req: Request, res, _next) => {
    const transportStatus = (err as { status?: unknown }).status;
    const status = err instanceof AppError ? httpStatusOf(err) : typeof transportStatus === 'number' && transportStatus >= 400 && transportStatus < 500 ? transportStatus : 500;
    if (status >= 500) req.log.error({ err }, failure);
    if (res.headersSent) {
      res.end();
      return;
    }
    renderMessage(res, { base: req.baseUrl, footer }, { ...(messages[status] ?? fallback), status });
  };
}
