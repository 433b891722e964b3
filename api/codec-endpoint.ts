import { createHash, timingSafeEqual } from 'node:crypto';
import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import type { Payload, PayloadCodec } from '@temporalio/common';
import type { Logger } from '../lib/logger';

/**
 * Temporal's remote codec protocol, for the Web UI (and `temporal … --codec-endpoint`): POST `<endpoint>/decode` and
 * `<endpoint>/encode` with `{"payloads":[{"metadata":{k: base64},"data": base64}]}`, answered in the same shape.
 *
 * Operators only: the caller presents CODEC_AUTH_TOKEN as `Authorization: Bearer <token>` (a proxy, a script, the
 * CLI) or as the endpoint's last path segment, `/codec/<token>` (the dev server's UI can send neither a header nor
 * credentials, so `npm start` gives it that form). Browsers may call from the CODEC_CORS_ORIGIN origins only.
 */
export interface CodecEndpointOptions {
  codec: PayloadCodec;
  token: string;
  corsOrigins: readonly string[];
  logger: Logger;
  /** A codec batch is one page of history events: larger than API bodies. */
  bodyLimit?: string;
}

interface JsonPayload {
  metadata?: Record<string, string> | null;
  data?: string | null;
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** Equal-length digests, so neither the comparison nor its length check tells how much of a guess was right. */
function sameToken(presented: string | undefined, expected: Buffer): boolean {
  return presented !== undefined && timingSafeEqual(digest(presented), expected);
}

function fromJson(payload: JsonPayload): Payload {
  return {
    metadata: Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64')])),
    data: Buffer.from(payload.data ?? '', 'base64'),
  };
}

function toJson(payload: Payload): JsonPayload {
  return {
    metadata: Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value).toString('base64')])),
    data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64'),
  };
}

function isPayloadList(body: unknown): body is { payloads: JsonPayload[] } {
  const payloads = (body as { payloads?: unknown } | null)?.payloads;
  return (
    Array.isArray(payloads) &&
    payloads.every(
      (p: JsonPayload | null) =>
        typeof p === 'object' && p !== null &&
        (p.data == null || typeof p.data === 'string') &&
        (p.metadata == null || (typeof p.metadata === 'object' && Object.values(p.metadata).every((v) => typeof v === 'string'))),
    )
  );
}

export function codecEndpoint({ codec, token, corsOrigins, logger, bodyLimit = '8mb' }: CodecEndpointOptions): Router {
  const expected = digest(token);
  const allowed = new Set(corsOrigins);
  const router = express.Router();

  // CORS for the UI's origin, with credentials (the UI may send cookies of its own deployment) and X-Namespace.
  const cors: RequestHandler = (req, res, next) => {
    const origin = req.headers.origin;
    if (origin === undefined) return next();
    if (!allowed.has(origin)) {
      logger.warn({ origin, path: req.baseUrl }, 'codec endpoint: refused a browser call from an origin not in CODEC_CORS_ORIGIN');
      res.status(403).json({ error: 'origin not allowed' });
      return;
    }
    res.vary('Origin');
    res.set({ 'Access-Control-Allow-Origin': origin, 'Access-Control-Allow-Credentials': 'true' });
    if (req.method !== 'OPTIONS') return next();
    res.set({
      'Access-Control-Allow-Methods': 'POST, OPTIONS',
      'Access-Control-Allow-Headers': 'Authorization, Content-Type, X-Namespace',
      'Access-Control-Max-Age': '600',
    });
    res.status(204).end();
  };

  const authorised = (req: Request, res: Response): boolean => {
    const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (sameToken(bearer, expected) || sameToken(req.params.token as string | undefined, expected)) return true;
    logger.warn({ ip: req.ip, namespace: req.get('x-namespace') }, 'codec endpoint: refused a call without the operator token');
    res.set('WWW-Authenticate', 'Bearer realm="codec"').status(401).json({ error: 'the operator token (CODEC_AUTH_TOKEN) is required' });
    return false;
  };

  const operation = (run: (payloads: Payload[]) => Promise<Payload[]>): RequestHandler[] => [
    express.json({ limit: bodyLimit }),
    async (req, res) => {
      if (!authorised(req, res)) return;
      if (!isPayloadList(req.body)) {
        res.status(400).json({ error: 'expected {"payloads":[{"metadata":{…},"data":"<base64>"}]}' });
        return;
      }
      try {
        res.json({ payloads: (await run(req.body.payloads.map(fromJson))).map(toJson) });
      } catch (err) {
        logger.warn({ err: (err as Error).message }, 'codec endpoint: payloads could not be decoded');
        res.status(400).json({ error: (err as Error).message });
      }
    },
  ];

  router.use(cors);
  for (const prefix of ['', '/:token']) {
    router.post(`${prefix}/decode`, ...operation((p) => codec.decode(p)));
    router.post(`${prefix}/encode`, ...operation((p) => codec.encode(p)));
  }
  return router;
}
