import { QueryTypes } from 'sequelize';
import type { CreatedWorkspace } from '../../domain/workspaces/service';
import { http, useTestApi } from '../helpers/context';
import { expectError } from '../helpers/expect';
import { postMultipart } from '../helpers/multipart';

// The one text rule (lib/text.ts) on every free-text input: NUL is refused everywhere (PostgreSQL cannot store
// it: it was a 500 in jsonb, `\0` in text), single-line fields also refuse other controls, line breaks and bidi
// controls; every refusal is 400 VALIDATION_ERROR naming the field, with nothing written.

const t = useTestApi({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });

const PRODUCTS = '/api/v1/storefront/products';
const WEBHOOKS = '/api/v1/payment/webhook-endpoints';
const TABLES = ['products', 'product_files', 'events', 'webhook_endpoints', 'api_keys', 'portfolio_items', 'testimonials', 'certifications'];

/** Refused in every text field. */
const ANYWHERE = ['a\u0000b', 'a\u0007b', 'a\u007Fb', 'a\u0085b'];
/** Refused in single-line fields besides: line breaks, tab and bidi controls (U+202E spoofs extensions). */
const SINGLE_ONLY = ['a\nb', 'a\r\nb', 'a\tb', 'a\u2028b', 'a\u202Eb', 'a\u2066b', 'a\u200Fb'];

type Kind = 'single' | 'multi';
type Body = Record<string, unknown>;

interface FieldCase {
  label: string;
  /** Named in the error. */
  field: string;
  kind: Kind;
  method: 'POST' | 'PATCH';
  /** The request path, given the workspace's fixtures. */
  path: (f: Fixtures) => string;
  body: (value: string) => Body;
}

interface Fixtures {
  productId: string;
  webhookId: string;
  portfolioId: string;
  testimonialId: string;
  certificationId: string;
}

const digital = { name: 'Ebook', price: 10, currency: 'USD', type: 'digital' };

function product(field: string, kind: Kind, wrap: (v: string) => unknown = (v) => v): FieldCase[] {
  return [
    { label: `product create ${field}`, field, kind, method: 'POST', path: () => PRODUCTS, body: (v) => ({ ...digital, [field]: wrap(v) }) },
    { label: `product PATCH ${field}`, field, kind, method: 'PATCH', path: (f) => `${PRODUCTS}/${f.productId}`, body: (v) => ({ [field]: wrap(v) }) },
  ];
}

function credibility(resource: 'portfolio' | 'testimonials' | 'certifications', minimal: Body, field: string, kind: Kind): FieldCase[] {
  const id = (f: Fixtures) => ({ portfolio: f.portfolioId, testimonials: f.testimonialId, certifications: f.certificationId })[resource];
  return [
    { label: `${resource} create ${field}`, field, kind, method: 'POST', path: () => `/api/v1/${resource}`, body: (v) => ({ ...minimal, [field]: v }) },
    { label: `${resource} PATCH ${field}`, field, kind, method: 'PATCH', path: (f) => `/api/v1/${resource}/${id(f)}`, body: (v) => ({ [field]: v }) },
  ];
}

const FIELDS: FieldCase[] = [
  ...product('name', 'single'),
  ...product('description', 'multi'),
  ...product('tags', 'single', (v) => ['ok', v]),
  ...product('coverImages', 'single', (v) => [`https://cdn.example.com/${v}.png`]),
  ...product('thumbnail', 'single', (v) => `https://cdn.example.com/${v}.png`),
  ...product('metadata', 'multi', (v) => ({ note: v })),
  ...product('metadata', 'single', (v) => ({ [v]: 'key with a control' })),
  ...product('gtin', 'single'),
  ...product('brand', 'single'),
  ...product('googleProductCategory', 'single'),
  ...product('originAreaId', 'single'),
  ...product('leadTimeText', 'multi'),
  ...product('batchHint', 'multi'),
  {
    label: 'file register fileName',
    field: 'fileName',
    kind: 'single',
    method: 'POST',
    path: (f) => `${PRODUCTS}/${f.productId}/files`,
    body: (v) => ({ fileName: `invoice${v}fdp.exe`, fileSize: 10 }),
  },
  { label: 'file register mimeType', field: 'mimeType', kind: 'single', method: 'POST', path: (f) => `${PRODUCTS}/${f.productId}/files`, body: (v) => ({ fileName: 'a.pdf', fileSize: 10, mimeType: v }) },
  { label: 'webhook create url', field: 'url', kind: 'single', method: 'POST', path: () => WEBHOOKS, body: (v) => ({ url: `https://hooks.example.com/${v}` }) },
  { label: 'webhook PATCH url', field: 'url', kind: 'single', method: 'PATCH', path: (f) => `${WEBHOOKS}/${f.webhookId}`, body: (v) => ({ url: `https://hooks.example.com/${v}` }) },
  { label: 'webhook create description', field: 'description', kind: 'single', method: 'POST', path: () => WEBHOOKS, body: (v) => ({ url: 'https://hooks.example.com/x', description: v }) },
  { label: 'webhook PATCH description', field: 'description', kind: 'single', method: 'PATCH', path: (f) => `${WEBHOOKS}/${f.webhookId}`, body: (v) => ({ description: v }) },
  { label: 'api key name', field: 'name', kind: 'single', method: 'POST', path: () => '/api/v1/account/api-keys', body: (v) => ({ name: v, environment: 'test', access: 'secret' }) },
  ...credibility('portfolio', { title: 'T' }, 'title', 'single'),
  ...credibility('portfolio', { title: 'T' }, 'clientName', 'single'),
  ...credibility('portfolio', { title: 'T' }, 'description', 'multi'),
  ...credibility('testimonials', { authorName: 'A', quote: 'Q' }, 'authorName', 'single'),
  ...credibility('testimonials', { authorName: 'A', quote: 'Q' }, 'authorRole', 'single'),
  ...credibility('testimonials', { authorName: 'A', quote: 'Q' }, 'quote', 'multi'),
  ...credibility('certifications', { name: 'N', issuer: 'I' }, 'name', 'single'),
  ...credibility('certifications', { name: 'N', issuer: 'I' }, 'issuer', 'single'),
];

const CASES = FIELDS.flatMap((c) => [...ANYWHERE, ...(c.kind === 'single' ? SINGLE_ONLY : [])].map((value) => [c.label, JSON.stringify(value), c, value] as const));

let ws: CreatedWorkspace;
let fixtures: Fixtures;

/** Every row of the workspace, less a key's `last_used_at`: each request may touch it (at most once a minute). */
async function snapshot(accountId: string) {
  const rows: Record<string, unknown[]> = {};
  for (const table of TABLES) {
    const found = await t.ctx.sequelize.query<Record<string, unknown>>(`SELECT * FROM ${table} WHERE account_id = :accountId ORDER BY id`, {
      replacements: { accountId },
      type: QueryTypes.SELECT,
    });
    rows[table] = found.map(({ last_used_at: _lastUsedAt, ...row }) => row);
  }
  return rows;
}

async function created(path: string, body: Body, dataKey?: string): Promise<string> {
  const res = await http<{ data: Record<string, unknown> & { id?: string } }>(t.api.baseUrl, 'POST', path, { key: ws.secretKey, body });
  expect(res.status).toBe(201);
  return (dataKey ? (res.body.data[dataKey] as { id: string }).id : res.body.data.id) as string;
}

beforeAll(async () => {
  ws = await t.ctx.createWorkspace({ plan: 'pro' });
  fixtures = {
    productId: await created(PRODUCTS, digital),
    webhookId: await created(WEBHOOKS, { url: 'https://hooks.example.com/x' }),
    portfolioId: await created('/api/v1/portfolio', { title: 'T' }, 'item'),
    testimonialId: await created('/api/v1/testimonials', { authorName: 'A', quote: 'Q' }, 'testimonial'),
    certificationId: await created('/api/v1/certifications', { name: 'N', issuer: 'I' }, 'certification'),
  };
});

describe('refused characters', () => {
  it.each(CASES)('%s refuses %s with 400 VALIDATION_ERROR naming the field, writing nothing', async (_label, _shown, c, value) => {
    const before = await snapshot(ws.accountId);
    const res = await http(t.api.baseUrl, c.method, c.path(fixtures), { key: ws.secretKey, body: c.body(value) });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect((res.body.error as { details: Array<{ field?: string }> }).details.map((d) => d.field?.split('.')[0])).toContain(c.field);
    expect(await snapshot(ws.accountId)).toEqual(before);
  });

  it.each(['__proto__', 'constructor', 'prototype'])('refuses the metadata key %s instead of dropping it, writing nothing', async (key) => {
    const before = await snapshot(ws.accountId);
    // Sent as raw JSON: an object literal with `__proto__` would set the prototype, not a key.
    const raw = `{"metadata":{"sku":"A-1","${key}":"x"}}`;
    const res = await fetch(`${t.api.baseUrl}${PRODUCTS}/${fixtures.productId}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${ws.secretKey}`, 'content-type': 'application/json' },
      body: raw,
    });
    const body = (await res.json()) as { error: { code: string; details: Array<{ field?: string }> } };
    expect({ status: res.status, code: body.error.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
    expect(body.error.details.map((d) => d.field)).toContain(`metadata.${key}`);
    expect(await snapshot(ws.accountId)).toEqual(before);
  });

  it.each([
    ['a right-to-left override', 'invoice\u202Efdp.exe'],
    ['a bidi isolate', 'a\u2067b.pdf'],
    ['a NUL', 'a\u0000b.pdf'],
    ['a tab', 'a\tb.pdf'],
  ])('refuses an uploaded file name with %s, storing nothing', async (_what, fileName) => {
    const before = await snapshot(ws.accountId);
    const res = await postMultipart(t.api.baseUrl, `${PRODUCTS}/${fixtures.productId}/files`, ws.secretKey, [
      { name: 'file', filename: fileName, contentType: 'application/pdf', data: 'hello' },
    ]);
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(await snapshot(ws.accountId)).toEqual(before);
  });

  it('refuses a NUL in a path id and in a cursor with 400 VALIDATION_ERROR', async () => {
    expectError(await http(t.api.baseUrl, 'GET', `${PRODUCTS}/prod_a%00b`, { key: ws.secretKey }), 400, 'VALIDATION_ERROR');
    expectError(await http(t.api.baseUrl, 'GET', `/api/v1/testimonials/tst_a%00b`, { key: ws.secretKey }), 400, 'VALIDATION_ERROR');
    expectError(await http(t.api.baseUrl, 'GET', `${PRODUCTS}?cursor=a%00b`, { key: ws.secretKey }), 400, 'VALIDATION_ERROR');
  });
});

describe('found by fuzzing (scripts/fuzz-api.sh)', () => {
  it.each(['', '1e1', '2.5', 'ten'])('refuses limit=%j with 400 VALIDATION_ERROR, as the document says it is an integer', async (limit) => {
    expectError(await http(t.api.baseUrl, 'GET', `${PRODUCTS}?limit=${limit}`, { key: ws.secretKey }), 400, 'VALIDATION_ERROR');
  });

  it('counts the maximum length before trimming, as the document’s maxLength does', async () => {
    const before = await snapshot(ws.accountId);
    const res = await http(t.api.baseUrl, 'POST', '/api/v1/certifications', { key: ws.secretKey, body: { name: `   ${'a'.repeat(139)}`, issuer: 'I' } });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(await snapshot(ws.accountId)).toEqual(before);
  });
});

describe('accepted text', () => {
  it('keeps line breaks and tabs in multi-line fields and right-to-left marks in prose, and trims single-line fields', async () => {
    const description = 'First line\r\nSecond\tline\n\u0645\u0631\u062D\u0628\u0627\u200F (RTL)';
    const res = await http<{ data: Record<string, unknown> }>(t.api.baseUrl, 'POST', PRODUCTS, {
      key: ws.secretKey,
      body: { ...digital, name: '  Café  ', description, metadata: { featureBullets: 'One\nTwo' }, leadTimeText: '2 weeks\n(made to order)' },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ name: 'Café', description, metadata: { featureBullets: 'One\nTwo' }, leadTimeText: '2 weeks\n(made to order)' });
    const [row] = await t.ctx.sequelize.query<{ description: string }>('SELECT description FROM products WHERE id = :id', {
      replacements: { id: res.body.data.id },
      type: QueryTypes.SELECT,
    });
    expect(row!.description).toBe(description);
  });

  it('accepts a plain Unicode file name', async () => {
    const res = await postMultipart(t.api.baseUrl, `${PRODUCTS}/${fixtures.productId}/files`, ws.secretKey, [
      { name: 'file', filename: 'Résumé – 履歴書.pdf', contentType: 'application/pdf', data: 'hello' },
    ]);
    expect(res.status).toBe(201);
    expect((res.body.data as { fileName: string }).fileName).toBe('Résumé – 履歴書.pdf');
  });
});
