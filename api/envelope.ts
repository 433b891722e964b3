import type { Request, Response } from 'express';
import type { AppError } from '../lib/errors';
import { httpStatusOf } from './errors';

export interface PageMeta {
  nextCursor: string | null;
}

function meta(req: Request, page?: PageMeta) {
  return { requestId: req.requestId, timestamp: new Date().toISOString(), ...(page ? { page } : {}) };
}

/**
 * Writes a serialised envelope straight to the socket. Not `res.json`: that also hashes every body for an ETag
 * that could never match (each envelope carries its own request id and timestamp) and parses the Content-Type
 * back, a measurable share of a cheap request (docs/decisions/http.md, "Per-request cost"). Cached reads keep `res.send`, which
 * answers a matching If-None-Match with 304.
 */
function writeJson(req: Request, res: Response, status: number, body: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  if (req.method === 'HEAD') res.end();
  else res.end(body);
}

/** `{ data, error: null, meta }` */
export function sendData(req: Request, res: Response, status: number, data: unknown, page?: PageMeta): void {
  writeJson(req, res, status, JSON.stringify({ data, error: null, meta: meta(req, page) }));
}

/** `{ data, error: null, meta }` around `data` already serialised (for its ETag), so it is not serialised twice. */
export function sendSerializedData(req: Request, res: Response, status: number, dataJson: string, page?: PageMeta): void {
  res.status(status).type('json').send(`{"data":${dataJson},"error":null,"meta":${JSON.stringify(meta(req, page))}}`);
}

/** `{ data: null, error: { code, message, details? }, meta }` */
export function sendError(req: Request, res: Response, err: AppError): void {
  const error = { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) };
  writeJson(req, res, httpStatusOf(err), JSON.stringify({ data: null, error, meta: meta(req) }));
}
