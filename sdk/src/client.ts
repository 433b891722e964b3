import createClient, { type Client, type MaybeOptionalInit, type MethodResponse } from 'openapi-fetch';
import type { HttpMethod, PathsWithMethod, RequiredKeysOf } from 'openapi-typescript-helpers';
import { CommerceError, errorFromResponse } from './errors';
import type { paths } from './generated/schema';
import { IDEMPOTENT_OPERATIONS } from './generated/idempotent-operations';
import { createTransport, IDEMPOTENCY_HEADER, isRead, readOrKeyed, type RetryOptions } from './transport';

export interface CommerceClientOptions {
  /** The service's address, e.g. `http://localhost:3000`: every `/v1/…` path is served under its `/api`. */
  baseUrl: string;
  /** A secret key (`sk_test_…`, `sk_live_…`), or a publishable one for catalogue reads; omit it for the public buyer routes. */
  secretKey?: string;
  /** Sent as `X-Account-Id`: the workspace to act in, for keys of users who belong to several. */
  accountId?: string;
  retry?: RetryOptions;
  /** The fetch every try goes through (default: the global one), e.g. to add a proxy or a timeout. */
  fetch?: (request: Request) => Promise<Response>;
}

/** The openapi-fetch client over the generated types: full responses (headers, status) and no throwing. */
export type RawCommerceClient = Client<paths>;

type Operation<M extends HttpMethod, P extends PathsWithMethod<paths, M>> = paths[P][M];
type Init<M extends HttpMethod, P extends PathsWithMethod<paths, M>> = MaybeOptionalInit<paths[P], M>;
/** openapi-fetch's own rule: the options argument is optional exactly when nothing in it is required. */
type Args<I> = RequiredKeysOf<I> extends never ? [(I & { [key: string]: unknown })?] : [I & { [key: string]: unknown }];
/** The whole success envelope of an operation: `{ data, error: null, meta }`. */
export type SuccessEnvelope<M extends HttpMethod, P extends PathsWithMethod<paths, M>, I = Init<M, P>> = MethodResponse<RawCommerceClient, M, P, I>;
/** What an operation answers in `data`; routes that answer no envelope (feeds, exports) give their body whole. */
export type ResponseData<M extends HttpMethod, P extends PathsWithMethod<paths, M>, I = Init<M, P>> =
  SuccessEnvelope<M, P, I> extends { data: infer D } ? D : SuccessEnvelope<M, P, I>;

/** The GET operations that page with `cursor` (and `limit`), answering the next cursor in `meta.page.nextCursor`. */
export type ListPath = {
  [P in PathsWithMethod<paths, 'get'>]: Operation<'get', P> extends { parameters: { query?: infer Q } }
    ? [NonNullable<Q>] extends [never]
      ? never
      : 'cursor' extends keyof NonNullable<Q>
        ? P
        : never
    : never;
}[PathsWithMethod<paths, 'get'>];
type Parameters_<P extends ListPath> = Operation<'get', P>['parameters'];
/** A list's query (without `cursor`, which the iteration keeps) and, where the path has them, its path parameters. */
export type ListParams<P extends ListPath> = { query?: Omit<NonNullable<Parameters_<P>['query']>, 'cursor'> } & (Parameters_<P>['path'] extends Record<string, unknown>
  ? { path: Parameters_<P>['path'] }
  : { path?: never });
export type ListItem<P extends ListPath> = ResponseData<'get', P> extends (infer T)[] ? T : never;
export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

export interface CommerceClient {
  get<P extends PathsWithMethod<paths, 'get'>, I extends Init<'get', P>>(path: P, ...init: Args<I>): Promise<ResponseData<'get', P, I>>;
  post<P extends PathsWithMethod<paths, 'post'>, I extends Init<'post', P>>(path: P, ...init: Args<I>): Promise<ResponseData<'post', P, I>>;
  put<P extends PathsWithMethod<paths, 'put'>, I extends Init<'put', P>>(path: P, ...init: Args<I>): Promise<ResponseData<'put', P, I>>;
  patch<P extends PathsWithMethod<paths, 'patch'>, I extends Init<'patch', P>>(path: P, ...init: Args<I>): Promise<ResponseData<'patch', P, I>>;
  delete<P extends PathsWithMethod<paths, 'delete'>, I extends Init<'delete', P>>(path: P, ...init: Args<I>): Promise<ResponseData<'delete', P, I>>;
  /** Every item of a cursor-paginated list, fetching the next page as the loop reaches it. */
  list<P extends ListPath>(path: P, ...params: Args<ListParams<P>>): AsyncGenerator<ListItem<P>, void, undefined>;
  /** The pages of a cursor-paginated list, each with the cursor of the next (null on the last). */
  pages<P extends ListPath>(path: P, ...params: Args<ListParams<P>>): AsyncGenerator<Page<ListItem<P>>, void, undefined>;
  /** The generated openapi-fetch client on the same transport (headers, retries, idempotency keys). */
  readonly raw: RawCommerceClient;
}

/** `http://host:3000` and `http://host:3000/api/` both address `http://host:3000/api`. */
function apiBase(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, '');
  return trimmed.endsWith('/api') ? trimmed : `${trimmed}/api`;
}

/**
 * A typed client of the Commerce API: `get`/`post`/`put`/`patch`/`delete` answer the envelope's `data` and throw a
 * CommerceError for any refusal; `list` and `pages` walk cursors. Every request of an operation that honours an
 * `Idempotency-Key` carries one (the caller's, as a header or `params.header['idempotency-key']`, or a random UUID),
 * reused by every retry of that request.
 */
export function createCommerceClient(options: CommerceClientOptions): CommerceClient {
  const headers: Record<string, string> = {};
  if (options.secretKey) headers.Authorization = `Bearer ${options.secretKey}`;
  if (options.accountId) headers['X-Account-Id'] = options.accountId;
  // Mutations of routes that ignore an Idempotency-Key (a few public buyer routes): never sent twice without an answer.
  const unkeyed = new WeakSet<Request>();
  const raw = createClient<paths>({
    baseUrl: apiBase(options.baseUrl),
    headers,
    fetch: createTransport({ fetch: options.fetch, retry: options.retry, resendable: (request) => !unkeyed.has(request) && readOrKeyed(request) }),
  });
  raw.use({
    onRequest({ request, schemaPath }) {
      if (isRead(request)) return;
      if (!IDEMPOTENT_OPERATIONS.has(`${request.method.toLowerCase()} ${schemaPath}`)) unkeyed.add(request);
      // Set once here, so every retry of this call carries the same key.
      else if (!request.headers.has(IDEMPOTENCY_HEADER)) request.headers.set(IDEMPOTENCY_HEADER, crypto.randomUUID());
    },
  });

  async function envelope(method: HttpMethod, path: string, init: unknown): Promise<{ data: unknown; meta?: { page?: { nextCursor?: string | null } } }> {
    let result: { data?: unknown; error?: unknown; response: Response };
    try {
      // The public methods hold the types; here one untyped call serves them all.
      result = await (raw.request as (m: HttpMethod, p: string, i: unknown) => Promise<typeof result>)(method, path, init);
    } catch (err) {
      // The caller's own abort or timeout is theirs to see as it is. (Duck-typed: fetch's errors may come from another realm.)
      const { name, message } = (err ?? {}) as { name?: unknown; message?: unknown };
      if (name === 'AbortError' || name === 'TimeoutError') throw err;
      throw new CommerceError(0, 'NETWORK_ERROR', `${method.toUpperCase()} ${path}: no answer (${typeof message === 'string' ? message : String(err)})`, null, undefined, { cause: err });
    }
    if (!result.response.ok) throw errorFromResponse(result.response, result.error);
    const body = result.data;
    return typeof body === 'object' && body !== null && 'data' in body ? (body as { data: unknown }) : { data: body };
  }

  const call = (method: HttpMethod) => async (path: string, init?: unknown) => (await envelope(method, path, init)).data;

  async function* pages(path: string, params: { query?: Record<string, unknown>; path?: Record<string, unknown> } = {}): AsyncGenerator<Page<unknown>, void, undefined> {
    let cursor: string | undefined;
    do {
      const page = await envelope('get', path, { params: { path: params.path, query: { ...params.query, ...(cursor === undefined ? {} : { cursor }) } } });
      const nextCursor = page.meta?.page?.nextCursor ?? null;
      yield { data: page.data as unknown[], nextCursor };
      cursor = nextCursor ?? undefined;
    } while (cursor !== undefined);
  }

  async function* list(path: string, params?: { query?: Record<string, unknown>; path?: Record<string, unknown> }): AsyncGenerator<unknown, void, undefined> {
    for await (const page of pages(path, params)) yield* page.data;
  }

  return {
    get: call('get'),
    post: call('post'),
    put: call('put'),
    patch: call('patch'),
    delete: call('delete'),
    list,
    pages,
    raw,
  } as CommerceClient;
}
