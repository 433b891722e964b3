import { request } from 'node:http';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { http, type HttpResult } from './context';

type Json = Record<string, unknown>;

/**
 * A GET over node:http with exactly the headers given: fetch adds `Cache-Control: no-cache` to a request carrying
 * If-None-Match (as its spec says), which a CDN revalidating its copy does not send, and fetch may not set Host.
 */
export function rawGet(baseUrl: string, path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(baseUrl);
    const req = request({ host: url.hostname, port: url.port, path, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

export async function createProduct(baseUrl: string, key: string, body: Json): Promise<Json & { id: string; pageUrl: string }> {
  const res = await http<{ data: Json & { id: string; pageUrl: string } }>(baseUrl, 'POST', '/api/v1/storefront/products', {
    key,
    body: { price: 10, currency: 'USD', type: 'digital', published: true, ...body },
  });
  expect(res.status).toBe(201);
  return res.body.data;
}

export async function createPost(baseUrl: string, key: string, body: Json): Promise<Json & { id: string; slug: string }> {
  const res = await http<{ data: { post: Json & { id: string; slug: string } } }>(baseUrl, 'POST', '/api/v1/blog-posts', { key, body });
  expect(res.status).toBe(201);
  return res.body.data.post;
}

/** Elements that may repeat are always arrays; text stays text (a GTIN keeps its leading zeros). */
const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', parseTagValue: false, isArray: (name) => ['item', 'url', 'g:additional_image_link'].includes(name) });

/** Fetches an XML document: asserts it is well-formed and of the content type, and answers it parsed. */
export async function getXml<T = Json>(baseUrl: string, path: string, contentType: string, key?: string): Promise<{ doc: T; text: string; headers: Headers }> {
  const res = await http(baseUrl, 'GET', path, { key });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe(`${contentType}; charset=utf-8`);
  expect(res.text.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
  expect(XMLValidator.validate(res.text)).toBe(true);
  return { doc: parser.parse(res.text) as T, text: res.text, headers: res.headers };
}

/** ETag and 304 as a CDN revalidating its copy sees them. */
export async function expectRevalidates(baseUrl: string, path: string): Promise<void> {
  const first = await rawGet(baseUrl, path, {});
  expect(first.status).toBe(200);
  expect(first.headers['cache-control']).toBe('public, max-age=60');
  const etag = first.headers.etag as string;
  expect(etag).toMatch(/^W\/"/);
  expect((await rawGet(baseUrl, path, {})).headers.etag).toBe(etag);
  const notModified = await rawGet(baseUrl, path, { 'if-none-match': etag });
  expect(notModified.status).toBe(304);
  expect(notModified.text).toBe('');
}

let loopbackCounter = 0;

/**
 * A loopback address of its own for each call (Linux answers all of 127.0.0.0/8), so per-IP limits (the 10 checkout
 * creates per minute per IP and merchant) count each simulated buyer apart.
 */
export function nextLoopbackSource(): string {
  loopbackCounter += 1;
  return `127.${(process.pid % 200) + 20}.${100 + Math.floor(loopbackCounter / 250)}.${(loopbackCounter % 250) + 2}`;
}

/** A public POST from `from` (default: a fresh loopback address) with an optional key, as a buyer's browser sends it. */
export function buyerPost<T = Json>(baseUrl: string, path: string, body: unknown, { key, from = nextLoopbackSource() }: { key?: string; from?: string } = {}): Promise<HttpResult<T>> {
  const url = new URL(baseUrl);
  const payload = JSON.stringify(body);
  const headers: Record<string, string> = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) };
  if (key) headers.authorization = `Bearer ${key}`;
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method: 'POST', path, localAddress: from, headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => {
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') responseHeaders.set(name, value);
        resolve({ status: res.statusCode!, headers: responseHeaders, body: JSON.parse(text) as T, text });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}
