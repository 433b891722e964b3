import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { Account } from '../../db/models';
import { newId } from '../../lib/ids';
import { insertCustomer } from '../fixtures/billing';
import { insertInvoice, line } from '../fixtures/invoices';
import { http, useTestApi } from '../helpers/context';
import { expectError } from '../helpers/expect';

const t = useTestApi();
const INVOICES = '/api/v1/payment/invoices';
const ISSUE = '/api/v1/billing/invoices';

type InvoiceDto = { id: string; number: string; status: string; customerId: string | null; subscriptionId: string | null; createdAt: string };
type Page = { data: InvoiceDto[]; meta: { page: { nextCursor: string | null } } };

const list = (key: string, query = '') => http<Page>(t.api.baseUrl, 'GET', `${INVOICES}${query}`, { key });

/** A binary body, which the text helper would mangle. */
async function download(path: string, key: string) {
  const res = await fetch(`${t.api.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

const pdfText = (pdf: Buffer) => execFileSync('pdftotext', ['-layout', '-enc', 'UTF-8', '-', '-'], { input: pdf }).toString('utf8');

/** A strict RFC 4180 reader: CRLF records, quoted fields with doubled quotes; any bare CR, LF or quote is an error. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
      } else if (c === '"') {
        quoted = false;
        i += 1;
        if (![',', '\r', undefined].includes(text[i])) throw new Error(`text after a closing quote at ${i}`);
      } else {
        field += c;
        i += 1;
      }
    } else if (c === '"' && field === '') {
      quoted = true;
      i += 1;
    } else if (c === ',') {
      row.push(field);
      field = '';
      i += 1;
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i += 2;
    } else if (c === '\r' || c === '\n' || c === '"') {
      throw new Error(`bare ${JSON.stringify(c)} at ${i}`);
    } else {
      field += c;
      i += 1;
    }
  }
  if (quoted || field !== '' || row.length > 0) throw new Error('the last record does not end with CRLF');
  return rows;
}

describe('GET /v1/payment/invoices', () => {
  it('lists newest first in cursor pages, only the caller’s environment', async () => {
    const ws = await t.ctx.createWorkspace();
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push((await insertInvoice(t.ctx.sequelize, ws)).id);
    await insertInvoice(t.ctx.sequelize, { accountId: ws.accountId, environment: 'live' });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Page = (await list(ws.secretKey, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`)).body;
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data.map((i) => i.id));
      cursor = page.meta.page.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
    expect((await list(ws.liveSecretKey)).body.data).toHaveLength(1);
  });

  it('filters by status, customerId, subscriptionId and the created window, alone and together', async () => {
    const ws = await t.ctx.createWorkspace();
    const ada = await insertCustomer(ws);
    const bob = await insertCustomer(ws);
    const subscriptionId = newId('sub');
    const at = (iso: string) => new Date(iso);
    const a = await insertInvoice(t.ctx.sequelize, ws, { customerId: ada.id, status: 'paid', createdAt: at('2025-01-10T00:00:00Z') });
    const b = await insertInvoice(t.ctx.sequelize, ws, { customerId: ada.id, subscriptionId, createdAt: at('2025-02-10T00:00:00Z') });
    const c = await insertInvoice(t.ctx.sequelize, ws, { customerId: bob.id, subscriptionId, status: 'void', createdAt: at('2025-03-10T00:00:00Z') });
    const d = await insertInvoice(t.ctx.sequelize, ws, { customerId: bob.id, status: 'paid', createdAt: at('2025-04-10T00:00:00Z') });
    const ids = async (query: string) => (await list(ws.secretKey, query)).body.data.map((i) => i.id);
    expect(await ids('?status=paid')).toEqual([d.id, a.id]);
    expect(await ids('?status=open')).toEqual([b.id]);
    expect(await ids('?status=uncollectible')).toEqual([]);
    expect(await ids(`?customerId=${ada.id}`)).toEqual([b.id, a.id]);
    expect(await ids(`?subscriptionId=${subscriptionId}`)).toEqual([c.id, b.id]);
    expect(await ids('?createdAfter=2025-02-10T00:00:00Z')).toEqual([d.id, c.id]);
    expect(await ids('?createdBefore=2025-02-10T00:00:00Z')).toEqual([a.id]);
    expect(await ids(`?createdAfter=${encodeURIComponent('2025-01-10T07:00:00+07:00')}&createdBefore=2025-04-10T00:00:00Z`)).toEqual([c.id, b.id]);
    expect(await ids(`?customerId=${bob.id}&status=paid&createdAfter=2025-01-01T00:00:00Z`)).toEqual([d.id]);
    expect(await ids(`?customerId=${newId('cust')}`)).toEqual([]);
  });

  it.each([
    ['an unknown status', '?status=overdue'],
    ['a createdAfter that is not ISO 8601', '?createdAfter=yesterday'],
    ['a date without a time', '?createdBefore=2025-01-01'],
    ['createdAfter not before createdBefore', '?createdAfter=2025-02-01T00:00:00Z&createdBefore=2025-02-01T00:00:00Z'],
    ['a cursor of another list', `?cursor=${Buffer.from(`v1:${newId('cust')}`).toString('base64url')}`],
  ])('refuses %s with 400 VALIDATION_ERROR', async (_case, query) => {
    const ws = await t.ctx.createWorkspace();
    expectError(await list(ws.secretKey, query), 400, 'VALIDATION_ERROR');
  });
});

describe('GET /v1/payment/invoices/:id', () => {
  it('answers the invoice with its lines, totals and tax; 404 for an unknown id', async () => {
    const ws = await t.ctx.createWorkspace();
    await Account.update({ invoiceTaxRateBps: 1000 }, { where: { id: ws.accountId } });
    const invoice = await insertInvoice(t.ctx.sequelize, ws, { currency: 'IDR', lineItems: [line('Kelas', 2, 75_000), line('Modul', 1, 25_005)] });
    const res = await http<{ data: Record<string, unknown> }>(t.api.baseUrl, 'GET', `${INVOICES}/${invoice.id}`, { key: ws.secretKey });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: invoice.id,
      accountId: ws.accountId,
      status: 'open',
      subtotal: 175_005,
      taxAmount: 17_501,
      amount: 192_506,
      currency: 'IDR',
      lineItems: [
        { description: 'Kelas', quantity: 2, unitAmount: 75_000, amount: 150_000 },
        { description: 'Modul', quantity: 1, unitAmount: 25_005, amount: 25_005 },
      ],
      hostedUrl: null,
      pdfUrl: `${t.ctx.config.PUBLIC_BASE_URL}/api/v1/payment/invoices/${invoice.id}/pdf`,
    });
    expectError(await http(t.api.baseUrl, 'GET', `${INVOICES}/${newId('inv')}`, { key: ws.secretKey }), 404, 'RESOURCE_NOT_FOUND');
  });
});

describe('GET /v1/payment/invoices/:id/pdf', () => {
  it('is a real PDF naming the merchant, the customer, the number, the dates, every line and the totals', async () => {
    const ws = await t.ctx.createWorkspace();
    await Account.update({ name: 'Żółta Łódź Studio', invoiceTaxRateBps: 1100 }, { where: { id: ws.accountId } });
    const customer = await insertCustomer(ws, { name: 'Łukasz Müller', email: 'lukasz@example.com' });
    const dueAt = new Date(Date.now() + 20 * 24 * 60 * 60 * 1000);
    const issued = await http<{ data: { id: string; number: string } }>(t.api.baseUrl, 'POST', ISSUE, {
      key: ws.secretKey,
      body: {
        customerId: customer.id,
        currency: 'USD',
        lineItems: [
          { description: 'Logo design — three concepts', quantity: 3, unitAmount: 12_500 },
          { description: 'Hosting (annual)', quantity: 1, unitAmount: 2_000 },
        ],
        dueAt: dueAt.toISOString(),
        memo: 'Thank you!',
      },
    });
    const { id, number } = issued.body.data;
    const res = await download(`${INVOICES}/${id}/pdf`, ws.secretKey);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename=${number}.pdf`);
    expect(res.headers.get('content-length')).toBe(String(res.body.length));
    expect(res.body.subarray(0, 5).toString()).toBe('%PDF-');
    const text = pdfText(res.body);
    const day = (at: Date) => new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }).format(at);
    for (const expected of [
      'Żółta Łódź Studio',
      'INVOICE',
      number,
      'DUE',
      'TEST MODE',
      'Łukasz Müller',
      'lukasz@example.com',
      'Issued',
      day(new Date()),
      'Due',
      day(dueAt),
      'Logo design — three concepts',
      '$125.00',
      '$375.00',
      'Hosting (annual)',
      '$20.00',
      'Subtotal',
      '$395.00',
      '$43.45',
      'Total (USD)',
      '$438.45',
      'Thank you!',
      `${t.ctx.config.PUBLIC_BASE_URL}/checkout/cs_`,
    ]) {
      expect([expected, text.includes(expected)]).toEqual([expected, true]);
    }
  });

  it('runs onto further pages for a hundred lines, every one of them in the text', async () => {
    const ws = await t.ctx.createWorkspace();
    const invoice = await insertInvoice(t.ctx.sequelize, ws, { lineItems: Array.from({ length: 100 }, (_, i) => line(`Item number ${i + 1}`, 1, 100 + i)) });
    const res = await download(`${INVOICES}/${invoice.id}/pdf`, ws.secretKey);
    const text = pdfText(res.body);
    expect(text.split('\f').filter((page) => page.trim()).length).toBeGreaterThan(1);
    for (let i = 1; i <= 100; i += 1) expect(text).toMatch(new RegExp(`Item number ${i}\\b`));
    expect(text).toContain('$149.50');
  });

  it('answers 404 for an unknown invoice, in the JSON error envelope', async () => {
    const ws = await t.ctx.createWorkspace();
    expectError(await http(t.api.baseUrl, 'GET', `${INVOICES}/${newId('inv')}/pdf`, { key: ws.secretKey }), 404, 'RESOURCE_NOT_FOUND');
  });
});

describe('GET /v1/payment/invoices/:id/html', () => {
  it('renders the same content with every value escaped, under a CSP that runs no script and allows only its own style', async () => {
    const ws = await t.ctx.createWorkspace();
    await Account.update({ name: 'Acme <b>Bold</b> & Co' }, { where: { id: ws.accountId } });
    const customer = await insertCustomer(ws, { name: '<script>alert("name")</script>', email: 'x@example.com' });
    const invoice = await insertInvoice(t.ctx.sequelize, ws, {
      customerId: customer.id,
      lineItems: [line('<img src=x onerror=alert(1)>', 2, 1_000)],
      memo: '"quoted" & <i>memo</i>\nsecond line',
      dueAt: new Date('2099-01-31T00:00:00Z'),
    });
    const res = await http(t.api.baseUrl, 'GET', `${INVOICES}/${invoice.id}/html`, { key: ws.secretKey });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = res.text;
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>');
    expect(html).not.toContain('<i>');
    expect(html).toContain('&lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt;');
    expect(html).toContain('Acme &lt;b&gt;Bold&lt;/b&gt; &amp; Co');
    expect(html).toContain('&lt;img src&#x3D;x onerror&#x3D;alert(1)&gt;');
    expect(html).toContain('&quot;quoted&quot; &amp; &lt;i&gt;memo&lt;/i&gt;\nsecond line');
    for (const expected of [invoice.number, 'x@example.com', '31 Jan 2099', '$10.00', '$20.00', 'Subtotal', 'Total (USD)', 'TEST MODE']) expect(html).toContain(expected);
    const csp = res.headers.get('content-security-policy')!;
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
    expect(csp).toBe(
      `default-src 'none'; script-src 'none'; style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'; img-src 'none'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'`,
    );
    expect(res.headers.get('cache-control')).toBe('no-store');
  });
});

describe('GET /v1/payment/invoices/export.csv', () => {
  const exportCsv = async (key: string, query = '') => {
    const res = await download(`${INVOICES}/export.csv${query}`, key);
    return { ...res, text: res.body.toString('utf8') };
  };

  it('streams exactly the documented columns, newest first, RFC 4180 with CRLF records', async () => {
    const ws = await t.ctx.createWorkspace();
    const customer = await insertCustomer(ws, { email: 'ada@example.com' });
    const paidAt = new Date('2025-05-01T10:00:00.000Z');
    const first = await insertInvoice(t.ctx.sequelize, ws, { customerId: customer.id, status: 'paid', paidAt, issuedAt: new Date('2025-04-01T09:30:00.000Z') });
    const second = await insertInvoice(t.ctx.sequelize, ws, { currency: 'IDR', lineItems: [line('x', 1, 150_000)], issuedAt: new Date('2025-04-02T00:00:00.000Z') });
    const res = await exportCsv(ws.secretKey);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv;charset=utf-8;header=present');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename=invoices.csv');
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    expect(res.text).toBe(
      [
        'id,number,status,customerEmail,amount,currency,issuedAt,paidAt',
        `${second.id},${second.number},open,,150000,IDR,2025-04-02T00:00:00.000Z,`,
        `${first.id},${first.number},paid,ada@example.com,10000,USD,2025-04-01T09:30:00.000Z,2025-05-01T10:00:00.000Z`,
        '',
      ].join('\r\n'),
    );
  });

  it('applies the list’s filters, with no pagination', async () => {
    const ws = await t.ctx.createWorkspace();
    const customer = await insertCustomer(ws);
    for (let i = 0; i < 120; i += 1) await insertInvoice(t.ctx.sequelize, ws, { customerId: i % 2 ? customer.id : null, status: i % 3 ? 'open' : 'paid' });
    const rows = async (query: string) => parseCsv((await exportCsv(ws.secretKey, query)).text).slice(1);
    expect(await rows('')).toHaveLength(120);
    expect(await rows('?status=paid')).toHaveLength(40);
    expect(await rows(`?customerId=${customer.id}&status=open`)).toHaveLength(40);
    expect(await rows('?createdAfter=2999-01-01T00:00:00Z')).toEqual([]);
    expectError(await http(t.api.baseUrl, 'GET', `${INVOICES}/export.csv?status=late`, { key: ws.secretKey }), 400, 'VALIDATION_ERROR');
  });

  it('quotes commas, quotes and line breaks, and defuses cells a spreadsheet would run as formulas', async () => {
    const ws = await t.ctx.createWorkspace();
    const emails = [
      'a,"b"\r\nc@example.com',
      '=HYPERLINK("http://evil.example","x")@example.com',
      '+1@example.com',
      '-2@example.com',
      '@sum@example.com',
      '\tTab@example.com',
      '\rcr@example.com',
      'lf\n@example.com',
      '＝fullwidth@example.com',
      'plain@example.com',
    ];
    for (const email of emails) await insertInvoice(t.ctx.sequelize, ws, { customerId: (await insertCustomer(ws, { email })).id });
    const res = await exportCsv(ws.secretKey);
    const rows = parseCsv(res.text);
    expect(rows[0]).toEqual(['id', 'number', 'status', 'customerEmail', 'amount', 'currency', 'issuedAt', 'paidAt']);
    expect(rows.slice(1).every((row) => row.length === 8)).toBe(true);
    expect(rows.slice(1).map((row) => row[3]).reverse()).toEqual([
      'a,"b"\r\nc@example.com',
      '\'=HYPERLINK("http://evil.example","x")@example.com',
      "'+1@example.com",
      "'-2@example.com",
      "'@sum@example.com",
      "'\tTab@example.com",
      "'\rcr@example.com",
      'lf\n@example.com',
      "'＝fullwidth@example.com",
      'plain@example.com',
    ]);
    expect(res.text).toContain('"a,""b""\r\nc@example.com"');
    expect(res.text).toContain(`"'=HYPERLINK(""http://evil.example"",""x"")@example.com"`);
  });

  it('is not taken for an invoice id, and needs a secret key', async () => {
    const ws = await t.ctx.createWorkspace();
    expect((await exportCsv(ws.secretKey)).text).toBe('id,number,status,customerEmail,amount,currency,issuedAt,paidAt\r\n');
    expectError(await http(t.api.baseUrl, 'GET', `${INVOICES}/export.csv`, { key: ws.publishableKey }), 403, 'FORBIDDEN');
  });
});
