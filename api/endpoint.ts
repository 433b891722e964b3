import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { MIMEType } from 'node:util';
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import express, { type Request, type RequestHandler, type Response } from 'express';
import type { Sequelize } from 'sequelize';
import { z } from 'zod';
import type { ApiKeyService } from '../domain/api-keys';
import type { AuthContext } from '../domain/auth-context';
import type { GatedModule } from '../domain/modules';
import type { CryptoBox } from '../lib/crypto-box';
import { AppError, type ErrorCode, type ErrorDetail } from '../lib/errors';
import { MAX_UPLOAD_DURATION_MS } from '../lib/storage';
import { HTTP_STATUS } from './errors';
import { sendData, sendSerializedData } from './envelope';
import { authenticate, requireAccess, requireModule } from './middleware/auth';
import { extendDeadline, markBodyRead } from './middleware/deadline';
import { idempotency } from './middleware/idempotency';
import type { Tenant } from '../db/tenancy';
import type { MethodsByPath } from './middleware/method-not-allowed';
import type { RateLimits } from './middleware/rate-limit';
import { noStore } from './middleware/security-headers';
import { ErrorEnvelope, successEnvelope } from './openapi';

/**
 * Who may call an endpoint: no key; no key, or any key of the workspace it reads (the public storefront: a key
 * then selects its environment); any key (publishable included); or only a secret key.
 */
export type Access = 'public' | 'storefront' | 'publishable' | 'secret';

type Schema = z.ZodType | undefined;
type Infer<S extends Schema> = S extends z.ZodType ? z.output<S> : undefined;

/**
 * A file to stream as a download: `body`, saved by the browser as `fileName`; `size` bytes when known, else sent
 * chunked as it is produced (an export written while it is read).
 */
export interface FileResult {
  body: Readable;
  size?: number;
  fileName: string;
  /** As recorded with the file; null (or unusable) falls back to the type of the name's extension. */
  mimeType: string | null;
}

/**
 * What a handler answers: `data` typed by the endpoint's response schema, a page cursor, no content, or (on an
 * endpoint declaring `produces`) a raw body sent as is, without the envelope, or a file streamed as an attachment.
 */
export type HandlerResult<R extends Schema> =
  | { data: R extends z.ZodType ? z.input<R> : unknown; nextCursor?: string | null }
  | { noContent: true }
  | { raw: string; headers?: Record<string, string> }
  | { file: FileResult };

export interface EndpointInput<B extends Schema, Q extends Schema, P extends Schema, A extends Access> {
  body: Infer<B>;
  query: Infer<Q>;
  params: Infer<P>;
  auth: A extends 'public' ? undefined : A extends 'storefront' ? AuthContext | undefined : AuthContext;
  req: Request;
  /** True when an endpoint declaring `multipart` got a multipart/form-data body: `body` is then not parsed and the handler streams `req`. */
  multipart: boolean;
}

export interface Endpoint<B extends Schema, Q extends Schema, P extends Schema, A extends Access, R extends Schema> {
  method: 'get' | 'post' | 'patch' | 'delete';
  /** Express path relative to the router's prefix, e.g. `/:id`. */
  path: string;
  summary: string;
  access: A;
  body?: B;
  query?: Q;
  params?: P extends z.ZodObject ? P : never;
  /**
   * Also accept `multipart/form-data` (the form described by this schema, for the OpenAPI document; a file part
   * is a `binaryPart`, so generated clients send a Blob). Such a body is left unread for the handler to stream
   * from `req`; a JSON body still goes through `body`.
   */
  multipart?: z.ZodType;
  /** Schema of `data` on success, for the OpenAPI document. */
  response?: R;
  /**
   * Media type of a non-JSON success body (`application/rss+xml`): the handler answers `{ raw }`, sent with this
   * Content-Type instead of the envelope, and documented as such; or `{ file }` (`application/octet-stream`),
   * sent with the file's own type. Errors keep the JSON error envelope.
   */
  produces?: string;
  status?: number;
  paginated?: boolean;
  /**
   * Public reads a CDN may cache: `Cache-Control: public, max-age=<seconds>` and an ETag of `data`, so a matching
   * `If-None-Match` is answered 304 (the envelope's request id and timestamp differ on every response).
   */
  cacheSeconds?: number;
  /**
   * A keyless answer no cache may keep (it carries a buyer's credentials, or depends on a secret it was asked
   * with): `Cache-Control: no-store` on every answer, refusals included. Keyed routes always have it.
   */
  noStore?: boolean;
  /** The route's own rate limit: in place of the per-workspace one on authenticated routes, after the per-IP one on public routes (a public write's per merchant, the licence routes' per key). */
  rateLimit?: RequestHandler;
  /**
   * Error codes this route's rules can answer besides those every route of its kind can (validation, auth,
   * not found, idempotency, body type and size, rate limit), for the OpenAPI document: e.g. QUOTA_EXCEEDED.
   */
  errors?: ErrorCode[];
  /**
   * `required`: a call without an `Idempotency-Key` header is `400 VALIDATION_ERROR` before anything runs (document 2's
   * subscription create); otherwise the key is optional on every mutating route.
   */
  idempotencyKey?: 'required';
  /**
   * A keyless (storefront) write that honours an `Idempotency-Key` too: the workspace and environment its keys are
   * kept in, from the parsed input (the merchant its path names). Keyed routes always honour one, in the key's.
   */
  idempotencyScope?: (input: { params: Infer<P>; auth: AuthContext | undefined }) => Promise<Tenant>;
  /**
   * The module a keyed route belongs to: while the workspace has it off, the route answers the module's refusal
   * (`409 fulfillment_module_disabled`) before reading the body. Not for public or storefront routes (no key, no workspace).
   */
  module?: GatedModule;
  handler: (input: EndpointInput<B, Q, P, A>) => Promise<HandlerResult<R>>;
}

export interface EndpointDeps {
  sequelize: Sequelize;
  registry: OpenAPIRegistry;
  apiKeys: ApiKeyService;
  rateLimits: RateLimits;
  box: CryptoBox;
  /** Shared by every router of the app, for the 405 answers mounted after them. */
  methodsByPath: MethodsByPath;
  /** express.json with the app's BODY_LIMIT; runs in each route's chain, never before authentication. */
  parseJson: RequestHandler;
}

function toDetails(error: z.ZodError): ErrorDetail[] {
  return error.issues.map((issue) => {
    const path = issue.path.join('.');
    if (issue.code === 'unrecognized_keys') {
      const field = issue.keys.map((k) => (path ? `${path}.${k}` : k)).join(', ');
      return { field, message: `unknown field${issue.keys.length > 1 ? 's' : ''}: ${field}` };
    }
    // No alternative matched: zod says only "Invalid input"; the first alternative's reason says more.
    const reason = issue.code === 'invalid_union' ? issue.errors[0]?.[0]?.message : undefined;
    if (reason) return { field: path || undefined, message: reason };
    return { field: path || undefined, message: issue.message };
  });
}

function parse<S extends Schema>(schema: S, value: unknown, where: string): Infer<S> {
  if (!schema) return undefined as Infer<S>;
  const result = schema.safeParse(value);
  if (!result.success) {
    const details = toDetails(result.error);
    const first = details[0];
    const message = first?.field ? `${first.field}: ${first.message}` : (first?.message ?? `invalid ${where}`);
    throw new AppError('VALIDATION_ERROR', message, details);
  }
  return result.data as Infer<S>;
}

const isMultipart = (req: Request) => req.is('multipart/form-data') === 'multipart/form-data';

function requireBodyType(multipart: boolean): RequestHandler {
  return (req, _res, next) => {
    const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
    if (hasBody && !req.is('application/json') && !(multipart && isMultipart(req))) {
      throw new AppError(
        'UNSUPPORTED_MEDIA_TYPE',
        multipart ? 'Send the body as application/json or multipart/form-data' : 'Send the body with Content-Type: application/json',
      );
    }
    next();
  };
}

const requireIdempotencyKey: RequestHandler = (req, _res, next) => {
  if (req.headers['idempotency-key'] === undefined) {
    throw new AppError('VALIDATION_ERROR', 'Idempotency-Key: this request requires an Idempotency-Key header', [{ field: 'Idempotency-Key', message: 'required' }]);
  }
  next();
};

const idempotencyKeyHeader = z.string().min(1).max(255);
const IDEMPOTENCY_KEY_MEANING = 'a retry with the same key replays the first response for 24 hours, and never runs the request twice';

/** The request headers an operation reads, for the OpenAPI document. */
function requestHeaders(idempotencyKey: 'required' | 'optional' | undefined, accountSelectable: boolean) {
  return z.object({
    ...(idempotencyKey === 'required' ? { 'idempotency-key': idempotencyKeyHeader.meta({ description: `Required: ${IDEMPOTENCY_KEY_MEANING}` }) } : {}),
    ...(idempotencyKey === 'optional' ? { 'idempotency-key': idempotencyKeyHeader.optional().meta({ description: `Optional: ${IDEMPOTENCY_KEY_MEANING}` }) } : {}),
    ...(accountSelectable
      ? { 'x-account-id': z.string().optional().meta({ description: "Selects the workspace (`acc_…`); defaults to the key's own, and any other is 403" }) }
      : {}),
  });
}

const stringHeader = (description: string) => ({ description, schema: { type: 'string' as const } });
const REQUEST_ID_HEADER = { 'X-Request-Id': stringHeader("This request's id (`req_…`), also in `meta.requestId` and in every log line") };
const RETRY_AFTER_HEADER = { 'Retry-After': stringHeader('Seconds to wait before retrying') };

/** A stable operationId from the method and path: `GET /v1/payment/payouts/{id}` is `getPaymentPayoutsById`. */
export function operationIdOf(method: string, path: string): string {
  const words = path
    .replace(/^\/v1\//, '')
    .split('/')
    .flatMap((segment) => (segment.startsWith('{') ? ['by', segment.slice(1, -1)] : segment.split(/[-_]/)));
  return method + words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('');
}

const ACCESS_SENTENCE: Record<Access, string> = {
  public: 'No API key.',
  storefront: "No API key needed; a key of the workspace, when sent, selects its environment.",
  publishable: 'A secret or a publishable key.',
  secret: 'A secret key.',
};

/** An upload streams for up to the upload allowance; everything else keeps the short request deadline. */
const allowUploadTime: RequestHandler = (req, res, next) => {
  if (isMultipart(req)) extendDeadline(req, res, MAX_UPLOAD_DURATION_MS);
  next();
};

/**
 * Public caching: `Cache-Control`, and a weak ETag of what the response carries (for JSON its `data`: the envelope's
 * request id and timestamp differ on every response). Express answers 304 itself when If-None-Match matches the
 * ETag already set on the response. Exported for the bench's ceilings, which send the same headers.
 */
export function publicCacheHeaders(seconds: number, content: string): { 'cache-control': string; etag: string; vary: string } {
  return {
    'cache-control': `public, max-age=${seconds}`,
    etag: `W/"${createHash('sha1').update(content).digest('base64url')}"`,
    vary: 'Authorization',
  };
}

function setCacheHeaders(res: Response, seconds: number, content: string): void {
  const headers = publicCacheHeaders(seconds, content);
  res.set('Cache-Control', headers['cache-control']);
  res.set('ETag', headers.etag);
  res.vary(headers.vary);
}

/** The recorded type when it is a well-formed media type; anything else is no header value of ours. */
function mediaTypeOf(recorded: string | null): string | null {
  if (!recorded) return null;
  try {
    return new MIMEType(recorded).toString();
  } catch {
    return null;
  }
}

/**
 * Streams a file as an attachment: browsers save it, never render it (RFC 6266 `Content-Disposition`, with an
 * RFC 8187 `filename*` for names beyond ASCII), and no cache keeps a copy of what each fetch of a counted link
 * serves. HEAD answers the headers alone. A stream that fails midway cuts the connection, so the client sees
 * fewer bytes than `Content-Length` (or a chunked body without its last chunk) rather than a complete-looking file.
 */
async function sendFile(req: Request, res: Response, file: FileResult): Promise<void> {
  // Express keeps only the part after the last `/`; a name that has one is saved whole, with `_` in its place.
  res.status(200).attachment(file.fileName.replaceAll('/', '_'));
  const type = mediaTypeOf(file.mimeType);
  // As recorded: res.type() would add a charset the file may not be in.
  if (type) res.setHeader('Content-Type', type);
  if (file.size !== undefined) res.set('Content-Length', String(file.size));
  res.set('Cache-Control', 'no-store');
  if (req.method === 'HEAD') {
    file.body.destroy();
    res.end();
    return;
  }
  try {
    await pipeline(file.body, res);
  } catch (err) {
    // The client going away mid-download is routine; a failing read is not.
    if ((err as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') req.log.error({ err }, 'a file download failed while streaming');
  }
}

/**
 * A router whose routes are declared once: the declaration wires authentication, access, rate limiting,
 * zod validation, idempotency and the envelope, and registers the route in the OpenAPI document.
 */
export class ApiRouter {
  /**
   * Mounted under `/api`: one prefix layer in front of this resource's routes, so a request tests each resource's
   * prefix once instead of every route of every resource (docs/decisions/http.md, "Per-request cost").
   */
  readonly router = express.Router();
  private readonly routes = express.Router();

  constructor(
    private readonly prefix: string,
    private readonly tag: string,
    private readonly deps: EndpointDeps,
  ) {
    this.router.use(prefix, this.routes);
  }

  add<B extends Schema = undefined, Q extends Schema = undefined, P extends Schema = undefined, A extends Access = 'secret', R extends Schema = undefined>(
    endpoint: Endpoint<B, Q, P, A, R>,
  ): this {
    const { deps } = this;
    const chain: RequestHandler[] =
      endpoint.access === 'public'
        ? [deps.rateLimits.perIp]
        : endpoint.access === 'storefront'
          ? [deps.rateLimits.perIp, authenticate(deps.apiKeys, { optional: true })]
          : [
              noStore,
              authenticate(deps.apiKeys),
              requireAccess(endpoint.access === 'publishable'),
              endpoint.rateLimit ?? deps.rateLimits.perWorkspace,
              ...(endpoint.module ? [requireModule(endpoint.module)] : []),
            ];
    if (endpoint.noStore && (endpoint.access === 'public' || endpoint.access === 'storefront')) chain.unshift(noStore);
    // The body is read only now: a caller without a valid key (or over its limit) cannot hold a socket by sending one slowly.
    if (endpoint.body || endpoint.multipart) chain.push(requireBodyType(endpoint.multipart !== undefined), deps.parseJson);
    if (endpoint.multipart) chain.push(allowUploadTime);
    // A public route's own limit (per merchant, which a write may name in its body; per licence key) runs once the body is read (the per-IP limit above ran first).
    if (endpoint.rateLimit && (endpoint.access === 'public' || endpoint.access === 'storefront')) chain.push(endpoint.rateLimit);
    chain.push((req, res, next) => {
      const multipart = endpoint.multipart !== undefined && isMultipart(req);
      // A multipart body is read by the handler, still under the deadline.
      if (!multipart) markBodyRead(req);
      res.locals.input = {
        multipart,
        body: multipart ? undefined : parse(endpoint.body, req.body ?? {}, 'body'),
        query: parse(endpoint.query, req.query, 'query'),
        params: parse(endpoint.params, req.params, 'path'),
      };
      next();
    });
    if (endpoint.idempotencyKey === 'required') chain.push(requireIdempotencyKey);
    if (endpoint.method !== 'get' && endpoint.access !== 'public' && endpoint.access !== 'storefront') chain.push(idempotency(deps.sequelize, deps.box));
    else if (endpoint.idempotencyScope) {
      const scope = endpoint.idempotencyScope;
      chain.push(idempotency(deps.sequelize, deps.box, (req) => scope({ params: (req.res!.locals.input as { params: Infer<P> }).params, auth: req.auth })));
    }
    chain.push(async (req: Request, res: Response) => {
      const input = res.locals.input as Omit<EndpointInput<B, Q, P, A>, 'auth' | 'req'>;
      const result = await endpoint.handler({ ...input, auth: req.auth as EndpointInput<B, Q, P, A>['auth'], req });
      if ('noContent' in result) {
        res.status(204).end();
        return;
      }
      if ('file' in result) {
        if (!endpoint.produces) throw new Error(`${endpoint.method} ${endpoint.path} answered a file without declaring produces`);
        await sendFile(req, res, result.file);
        return;
      }
      if ('raw' in result) {
        if (!endpoint.produces) throw new Error(`${endpoint.method} ${endpoint.path} answered a raw body without declaring produces`);
        if (endpoint.cacheSeconds !== undefined) setCacheHeaders(res, endpoint.cacheSeconds, result.raw);
        if (result.headers) res.set(result.headers);
        res.status(endpoint.status ?? 200).type(endpoint.produces).send(result.raw);
        return;
      }
      const page = endpoint.paginated ? { nextCursor: result.nextCursor ?? null } : undefined;
      if (endpoint.cacheSeconds === undefined) return sendData(req, res, endpoint.status ?? 200, result.data, page);
      // The ETag is of `data`, which is then sent as serialised for it.
      const dataJson = JSON.stringify(result.data);
      setCacheHeaders(res, endpoint.cacheSeconds, dataJson);
      sendSerializedData(req, res, endpoint.status ?? 200, dataJson, page);
    });
    const path = this.fullPath(endpoint.path);
    this.routes[endpoint.method](endpoint.path, ...chain);
    deps.methodsByPath.set(path, (deps.methodsByPath.get(path) ?? new Set()).add(endpoint.method));
    this.register(endpoint);
    return this;
  }

  private fullPath(path: string): string {
    return `${this.prefix}${path === '/' ? '' : path}`;
  }

  private register<B extends Schema, Q extends Schema, P extends Schema, A extends Access, R extends Schema>(endpoint: Endpoint<B, Q, P, A, R>): void {
    const status = endpoint.status ?? 200;
    const path = this.fullPath(endpoint.path).replace(/:([A-Za-z]+)/g, '{$1}');
    const hasBody = endpoint.body !== undefined || endpoint.multipart !== undefined;
    // A storefront route takes an optional key, which is checked like any other when sent.
    const authenticated = endpoint.access !== 'public';
    const mutating = endpoint.method !== 'get' && authenticated && endpoint.access !== 'storefront';
    // Every code the machinery in add() can answer for this route, then the route's own; one status each.
    const codes: ErrorCode[] = [
      ...(hasBody || endpoint.query || endpoint.params || mutating ? (['VALIDATION_ERROR'] as const) : []),
      ...(authenticated ? (['AUTHENTICATION_REQUIRED', 'INVALID_API_KEY', 'FORBIDDEN'] as const) : []),
      // Storefront routes resolve a merchant by slug (in the path or the body): an unknown one is 404.
      ...(endpoint.params || endpoint.access === 'storefront' ? (['RESOURCE_NOT_FOUND'] as const) : []),
      ...(mutating || endpoint.idempotencyScope ? (['IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_KEY_IN_USE'] as const) : []),
      // REQUEST_TIMEOUT: a body still arriving at the request deadline (api/middleware/deadline.ts).
      ...(hasBody ? (['PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'REQUEST_TIMEOUT'] as const) : []),
      'RATE_LIMITED',
      'INTERNAL_ERROR',
      // The database went away under the request: nothing was changed (api/middleware/error-handler.ts).
      'SERVICE_UNAVAILABLE',
      ...(endpoint.module ? (['fulfillment_module_disabled'] as const) : []),
      ...(endpoint.errors ?? []),
    ];
    const byStatus = new Map<number, Set<ErrorCode>>();
    for (const code of codes) byStatus.set(HTTP_STATUS[code], (byStatus.get(HTTP_STATUS[code]) ?? new Set()).add(code));
    const errors = Object.fromEntries(
      [...byStatus].sort(([a], [b]) => a - b).map(([code, names]) => [
        code,
        {
          description: [...names].join(', '),
          // 429 and 503 always say when to come back; 409 does for a key whose first request is still running.
          headers: { ...REQUEST_ID_HEADER, ...(code === 429 || code === 503 || names.has('IDEMPOTENCY_KEY_IN_USE') ? RETRY_AFTER_HEADER : {}) },
          content: { 'application/json': { schema: ErrorEnvelope } },
        },
      ]),
    );
    const idempotencyKey = endpoint.idempotencyKey ?? (mutating || endpoint.idempotencyScope ? 'optional' : undefined);
    const headers = requestHeaders(idempotencyKey, authenticated);
    const cacheHeaders: Record<string, ReturnType<typeof stringHeader>> =
      endpoint.cacheSeconds !== undefined
        ? { 'Cache-Control': stringHeader(`public, max-age=${endpoint.cacheSeconds}`), ETag: stringHeader('A weak ETag of `data`; send it back as If-None-Match') }
        : (endpoint.access === 'public' || endpoint.access === 'storefront') && !endpoint.noStore
          ? {}
          : { 'Cache-Control': stringHeader('no-store') };
    const description = [
      `${endpoint.summary}.`,
      ACCESS_SENTENCE[endpoint.access],
      endpoint.module ? `Needs the ${endpoint.module} module, else 409 \`${endpoint.module}_module_disabled\`.` : '',
      idempotencyKey === 'required' ? 'Requires an `Idempotency-Key`.' : idempotencyKey === 'optional' ? 'Honours an `Idempotency-Key`.' : '',
      endpoint.paginated ? 'A page of results: pass `meta.page.nextCursor` back as `cursor` for the next one.' : '',
      endpoint.cacheSeconds !== undefined ? `Cacheable for ${endpoint.cacheSeconds} s; a matching \`If-None-Match\` is answered 304.` : '',
    ]
      .filter(Boolean)
      .join(' ');
    this.deps.registry.registerPath({
      method: endpoint.method,
      path,
      operationId: operationIdOf(endpoint.method, path),
      summary: endpoint.summary,
      description,
      tags: [this.tag],
      security: endpoint.access === 'public' ? [] : endpoint.access === 'storefront' ? [{}, { apiKey: [] }] : [{ apiKey: [] }],
      request: {
        ...(hasBody
          ? {
              body: {
                required: true,
                content: {
                  ...(endpoint.body ? { 'application/json': { schema: endpoint.body } } : {}),
                  ...(endpoint.multipart ? { 'multipart/form-data': { schema: endpoint.multipart } } : {}),
                },
              },
            }
          : {}),
        ...(endpoint.query instanceof z.ZodObject ? { query: endpoint.query } : {}),
        ...(endpoint.params ? { params: endpoint.params } : {}),
        ...(Object.keys(headers.shape).length > 0 ? { headers } : {}),
      },
      responses: {
        [status]:
          status === 204
            ? { description: 'No content', headers: { ...REQUEST_ID_HEADER, ...cacheHeaders } }
            : endpoint.produces
              ? { description: 'Success', headers: { ...REQUEST_ID_HEADER, ...cacheHeaders }, content: { [endpoint.produces]: { schema: z.string() } } }
              : {
                  description: 'Success',
                  headers: { ...REQUEST_ID_HEADER, ...cacheHeaders },
                  content: { 'application/json': { schema: successEnvelope(endpoint.response ?? z.unknown()) } },
                },
        // A cached read answers a matching If-None-Match with its ETag and no body.
        ...(endpoint.cacheSeconds !== undefined ? { 304: { description: 'Not modified: If-None-Match matched the ETag', headers: { ...REQUEST_ID_HEADER, ...cacheHeaders } } } : {}),
        ...errors,
      },
    });
  }
}
