import type { Request, Response } from 'express';
import type { AppError } from '../lib/errors';
import { httpStatusOf } from './errors';

export interface PageMeta {
  nextCursor: string | null;
}

function meta(req: Request, page?: PageMeta) {
  return { requestId: req.requestId, timestamp: new Date().toISOString(), ...(page ? { page } : {}) };
}

/** `{ data, error: null, meta }` */
export function sendData(req: Request, res: Response, status: number, data: unknown, page?: PageMeta): void {
  res.status(status).json({ data, error: null, meta: meta(req, page) });
}

/** `{ data, error: null, meta }` around `data` already serialised (for its ETag), so it is not serialised twice. */
export function sendSerializedData(req: Request, res: Response, status: number, dataJson: string, page?: PageMeta): void {
  res.status(status).type('json').send(`{"data":${dataJson},"error":null,"meta":${JSON.stringify(meta(req, page))}}`);
}

/** `{ data: null, error: { code, message, details? }, meta }` */
export function sendError(req: Request, res: Response, err: AppError): void {
  const error = { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) };
  res.status(httpStatusOf(err)).json({ data: null, error, meta: meta(req) });
}
