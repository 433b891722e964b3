import type { CreatedWorkspace } from '../../domain/workspaces/service';
import { http, useTestApi } from '../helpers/context';
import { CERTIFICATIONS, countRows, PORTFOLIO, RESOURCES, storedRow, TESTIMONIALS, type CredibilityCase } from '../helpers/credibility';
import { expectError } from '../helpers/expect';

// Every field rule of the portfolio, testimonial and certification tables: each bad value is sent on create
// and on PATCH and must be 400 VALIDATION_ERROR naming the field with nothing written; each edge value that
// is allowed must be stored and answered as stated.

const t = useTestApi();

type Envelope = { data: Record<string, Record<string, unknown>> };

const snake = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const chars = (n: number, c = 'a') => c.repeat(n);
const httpsOfLength = (n: number) => `https://example.com/${'a'.repeat(n - 'https://example.com/'.length)}`;

let ws: CreatedWorkspace;
const existing = new Map<CredibilityCase, string>();

beforeAll(async () => {
  ws = await t.ctx.createWorkspace();
  for (const r of RESOURCES) {
    const res = await http<Envelope>(t.api.baseUrl, 'POST', r.path, { key: ws.secretKey, body: r.minimal });
    existing.set(r, res.body.data[r.single]!.id as string);
  }
});

const REQUIRED_TEXT: Array<[CredibilityCase, string, number]> = [
  [PORTFOLIO, 'title', 140],
  [TESTIMONIALS, 'authorName', 140],
  [TESTIMONIALS, 'quote', 2000],
  [CERTIFICATIONS, 'name', 140],
  [CERTIFICATIONS, 'issuer', 140],
];
const OPTIONAL_TEXT: Array<[CredibilityCase, string, number]> = [
  [PORTFOLIO, 'clientName', 140],
  [TESTIMONIALS, 'authorRole', 140],
  [PORTFOLIO, 'description', 5000],
];
const IMAGE_URLS: Array<[CredibilityCase, string]> = [
  [TESTIMONIALS, 'avatarUrl'],
  [CERTIFICATIONS, 'imageUrl'],
];
const HTTPS_URLS: Array<[CredibilityCase, string]> = [
  [PORTFOLIO, 'externalUrl'],
  [CERTIFICATIONS, 'credentialUrl'],
];
const DATES: Array<[CredibilityCase, string]> = [
  [PORTFOLIO, 'completedAt'],
  [CERTIFICATIONS, 'issuedAt'],
];

const BAD_IMAGE_URLS: unknown[] = [
  'blob:https://example.com/550e8400-e29b-41d4-a716-446655440000',
  'data:image/png;base64,iVBORw0KGgo=',
  'javascript:alert(1)',
  'ftp://example.com/a.png',
  '//cdn.example.com/a.png',
  '/\\evil.example/a.png',
  'images/a.png',
  'https://',
  'https://exa mple.com/a.png',
  'https://example.com/a\n.png',
  httpsOfLength(2049),
  42,
];
const BAD_HTTPS_URLS: unknown[] = [
  'http://example.com/case-study',
  '/case-study',
  'example.com/case-study',
  'ftp://example.com/a',
  'javascript:alert(1)',
  'data:text/html,hi',
  'https://',
  httpsOfLength(2049),
  42,
];
const BAD_DATES: unknown[] = [
  'yesterday',
  '2023-02-30',
  '2023-13-01',
  '2023-1-5',
  '31/12/2023',
  '2023-05-31 09:30',
  '2023-05-31T24:00:00Z',
  '2023-05-31T09:30:00+25:00',
  '10000-01-01',
  '0000-01-01',
  '',
  1_700_000_000,
];

/** [resource, body fragment] pairs that must be refused on create (merged into the minimal body) and on PATCH. */
const BAD: Array<[CredibilityCase, Record<string, unknown>]> = [
  ...REQUIRED_TEXT.flatMap(([r, field, max]): Array<[CredibilityCase, Record<string, unknown>]> =>
    ['', '   ', null, 7, chars(max + 1), `${chars(max)}😀`, 'a\u0000b'].map((value) => [r, { [field]: value }]),
  ),
  ...REQUIRED_TEXT.filter(([, , max]) => max === 140).map(([r, field]): [CredibilityCase, Record<string, unknown>] => [r, { [field]: 'two\nlines' }]),
  ...OPTIONAL_TEXT.flatMap(([r, field, max]): Array<[CredibilityCase, Record<string, unknown>]> =>
    [chars(max + 1), 7, 'a\u0000b'].map((value) => [r, { [field]: value }]),
  ),
  [PORTFOLIO, { description: null }],
  ...IMAGE_URLS.flatMap(([r, field]) => [...BAD_IMAGE_URLS, ''].map((value): [CredibilityCase, Record<string, unknown>] => [r, { [field]: value }])),
  ...BAD_IMAGE_URLS.map((value): [CredibilityCase, Record<string, unknown>] => [PORTFOLIO, { images: ['/ok.png', value] }]),
  [PORTFOLIO, { images: [''] }],
  [PORTFOLIO, { images: Array.from({ length: 9 }, (_, i) => `/img/${i}.png`) }],
  [PORTFOLIO, { images: null }],
  [PORTFOLIO, { images: 'https://example.com/a.png' }],
  ...HTTPS_URLS.flatMap(([r, field]) => BAD_HTTPS_URLS.map((value): [CredibilityCase, Record<string, unknown>] => [r, { [field]: value }])),
  [CERTIFICATIONS, { credentialUrl: '' }],
  ...DATES.flatMap(([r, field]) => BAD_DATES.map((value): [CredibilityCase, Record<string, unknown>] => [r, { [field]: value }])),
  ...[0, 6, -1, 3.5, '5', true].map((rating): [CredibilityCase, Record<string, unknown>] => [TESTIMONIALS, { rating }]),
];

describe('bad values', () => {
  it.each(BAD.map(([r, body]) => [r.name, JSON.stringify(body).slice(0, 120), r, body] as const))(
    '%s refuses %s on create and PATCH with 400 VALIDATION_ERROR, writing nothing',
    async (_name, _label, r, body) => {
      const field = Object.keys(body)[0]!;
      const id = existing.get(r)!;
      const before = await storedRow(t.ctx.sequelize, r.table, id);
      const rows = await countRows(t.ctx.sequelize, r.table, ws.accountId);

      const post = await http(t.api.baseUrl, 'POST', r.path, { key: ws.secretKey, body: { ...r.minimal, ...body } });
      expectError(post, 400, 'VALIDATION_ERROR');
      expect((post.body.error as { details: Array<{ field?: string }> }).details.map((d) => d.field?.split('.')[0])).toContain(field);

      const patch = await http(t.api.baseUrl, 'PATCH', `${r.path}/${id}`, { key: ws.secretKey, body });
      expectError(patch, 400, 'VALIDATION_ERROR');

      expect(await countRows(t.ctx.sequelize, r.table, ws.accountId)).toBe(rows);
      expect(await storedRow(t.ctx.sequelize, r.table, id)).toEqual(before);
    },
  );

  it.each(REQUIRED_TEXT.map(([r, field]) => [r.name, field, r] as const))('%s refuses a create without %s, writing nothing', async (_name, field, r) => {
    const body = { ...r.minimal };
    delete body[field];
    const rows = await countRows(t.ctx.sequelize, r.table, ws.accountId);
    const res = await http(t.api.baseUrl, 'POST', r.path, { key: ws.secretKey, body });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(res.body.error)).toContain(field);
    expect(await countRows(t.ctx.sequelize, r.table, ws.accountId)).toBe(rows);
  });
});

/**
 * [resource, field, a non-null value to start from, value sent, value answered]: sent on create, and on
 * PATCH over a record holding the starting value; both must answer, re-read and store the expected value.
 */
const GOOD: Array<[CredibilityCase, string, unknown, unknown, unknown]> = [
  ...REQUIRED_TEXT.flatMap(([r, field, max]): Array<[CredibilityCase, string, unknown, unknown, unknown]> => [
    [r, field, 'start', '  Padded value \n', 'Padded value'],
    [r, field, 'start', chars(max), chars(max)],
    // Limits count characters, not UTF-16 units: emoji are one character each.
    [r, field, 'start', chars(max, '😀'), chars(max, '😀')],
  ]),
  [TESTIMONIALS, 'quote', 'start', '  First line.\nSecond line.  ', 'First line.\nSecond line.'],
  [PORTFOLIO, 'description', 'start', '  Indented\n\n- kept as sent  ', '  Indented\n\n- kept as sent  '],
  [PORTFOLIO, 'description', 'start', chars(5000), chars(5000)],
  [PORTFOLIO, 'description', 'start', '', ''],
  ...OPTIONAL_TEXT.filter(([, field]) => field !== 'description').flatMap(([r, field, max]): Array<[CredibilityCase, string, unknown, unknown, unknown]> => [
    [r, field, 'start', '  Acme Corp ', 'Acme Corp'],
    [r, field, 'start', chars(max), chars(max)],
    [r, field, 'start', '', null],
    [r, field, 'start', '   ', null],
    [r, field, 'start', null, null],
  ]),
  [PORTFOLIO, 'images', ['/start.png'], [], []],
  [
    PORTFOLIO,
    'images',
    ['/start.png'],
    ['https://cdn.example.com/1.png', 'http://example.com/2.png', '/uploads/3.png', ' /4.png ', '/5.png', '/6.png', '/7.png', httpsOfLength(2048)],
    ['https://cdn.example.com/1.png', 'http://example.com/2.png', '/uploads/3.png', '/4.png', '/5.png', '/6.png', '/7.png', httpsOfLength(2048)],
  ],
  ...IMAGE_URLS.flatMap(([r, field]): Array<[CredibilityCase, string, unknown, unknown, unknown]> => [
    [r, field, '/start.png', 'https://cdn.example.com/a.png?w=200', 'https://cdn.example.com/a.png?w=200'],
    [r, field, '/start.png', 'HTTP://example.com/a.png', 'HTTP://example.com/a.png'],
    [r, field, '/start.png', '/uploads/a.png', '/uploads/a.png'],
    [r, field, '/start.png', ' /padded.png ', '/padded.png'],
    [r, field, '/start.png', httpsOfLength(2048), httpsOfLength(2048)],
    [r, field, '/start.png', null, null],
  ]),
  ...HTTPS_URLS.flatMap(([r, field]): Array<[CredibilityCase, string, unknown, unknown, unknown]> => [
    [r, field, 'https://start.example', 'https://example.com/case?x=1#top', 'https://example.com/case?x=1#top'],
    [r, field, 'https://start.example', httpsOfLength(2048), httpsOfLength(2048)],
    [r, field, 'https://start.example', null, null],
  ]),
  [PORTFOLIO, 'externalUrl', 'https://start.example', '', null],
  [PORTFOLIO, 'externalUrl', 'https://start.example', '  ', null],
  ...DATES.flatMap(([r, field]): Array<[CredibilityCase, string, unknown, unknown, unknown]> => [
    [r, field, '2001-01-01', '2023', '2023-01-01T00:00:00.000Z'],
    [r, field, '2001-01-01', '2023-05', '2023-05-01T00:00:00.000Z'],
    [r, field, '2001-01-01', '2024-02-29', '2024-02-29T00:00:00.000Z'],
    [r, field, '2001-01-01', '2023-05-31T09:30:00Z', '2023-05-31T09:30:00.000Z'],
    [r, field, '2001-01-01', '2023-05-31T09:30:00+07:00', '2023-05-31T02:30:00.000Z'],
    [r, field, '2001-01-01', '2023-05-31T09:30:00.123456-0130', '2023-05-31T11:00:00.123Z'],
    [r, field, '2001-01-01', '2023-05-31T09:30', '2023-05-31T09:30:00.000Z'],
    [r, field, '2001-01-01', null, null],
  ]),
  ...[1, 5, null].map((rating): [CredibilityCase, string, unknown, unknown, unknown] => [TESTIMONIALS, 'rating', 3, rating, rating]),
];

describe('allowed values', () => {
  it.each(GOOD.map(([r, field, start, sent, answered]) => [r.name, field, JSON.stringify(sent).slice(0, 60), r, start, sent, answered] as const))(
    '%s stores %s = %s as documented, on create and on PATCH',
    async (_name, field, _label, r, start, sent, answered) => {
      const created = await http<Envelope>(t.api.baseUrl, 'POST', r.path, { key: ws.secretKey, body: { ...r.minimal, [field]: sent } });
      expect(created.status).toBe(201);
      const createdId = created.body.data[r.single]!.id as string;
      expect(created.body.data[r.single]![field]).toEqual(answered);

      const seeded = await http<Envelope>(t.api.baseUrl, 'POST', r.path, { key: ws.secretKey, body: { ...r.minimal, [field]: start } });
      const seededId = seeded.body.data[r.single]!.id as string;
      expect(seeded.body.data[r.single]![field]).not.toEqual(answered);
      const patched = await http<Envelope>(t.api.baseUrl, 'PATCH', `${r.path}/${seededId}`, { key: ws.secretKey, body: { [field]: sent } });
      expect(patched.status).toBe(200);
      expect(patched.body.data[r.single]![field]).toEqual(answered);

      for (const id of [createdId, seededId]) {
        const reread = await http<Envelope>(t.api.baseUrl, 'GET', `${r.path}/${id}`, { key: ws.secretKey });
        expect(reread.body.data[r.single]![field]).toEqual(answered);
        const stored = (await storedRow(t.ctx.sequelize, r.table, id))![snake(field)];
        if (DATES.some(([, f]) => f === field) && stored !== null) expect(new Date(stored as string).toISOString()).toBe(answered);
        else expect(stored).toEqual(answered);
        await http(t.api.baseUrl, 'DELETE', `${r.path}/${id}`, { key: ws.secretKey });
      }
    },
  );
});
