import { get as httpGet, type IncomingMessage } from 'node:http';
import { QueryTypes } from 'sequelize';
import type { CreatedWorkspace } from '../../domain/workspaces/service';
import { freePort } from '../../scripts/lib/free-port';
import { insertCustomer } from '../fixtures/billing';
import { createTestContext, type TestContext } from '../helpers/context';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process';

/**
 * The CSV export of 200,000 invoices from a real API process (`api/main.ts`, as deployed): the rows come from a
 * database cursor only as fast as the client reads, so the process needs the same memory however many invoices
 * there are, and a client that stops reading leaves the query waiting at its cursor.
 *
 * Memory is bounded by V8's heap limit rather than measured: the process runs with a heap of `HEAP_LIMIT_MB`,
 * which the API fits in with room to spare (it starts within 96 MB) but the result does not (one query, then
 * write, ran out of heap with half these rows). Holding the rows kills the process, whatever the machine's load;
 * a sampled RSS bound measured the garbage collector's lag on a busy CI machine instead.
 */
const ROWS = 200_000;
const HEAP_LIMIT_MB = 128;
const EXPORT_QUERY = 'FROM invoices i LEFT JOIN customers c';

let ctx: TestContext;
let ws: CreatedWorkspace;
let api: WorkerProcess;
let baseUrl: string;
/** The newest invoice's creation time; the others are a second apart before it. */
let newest: Date;

beforeAll(async () => {
  ctx = await createTestContext();
  ws = await ctx.createWorkspace();
  const customer = await insertCustomer(ws, { email: 'bulk@example.com' });
  newest = new Date();
  // One statement: ids sort like ULIDs (digits are Crockford characters) in creation order, a third paid.
  await ctx.sequelize.query(
    `INSERT INTO invoices (id, account_id, environment, customer_id, number, status, currency, line_items, subtotal, tax_amount, amount, issued_at, paid_at, created_at)
     SELECT 'inv_01J' || lpad(g::text, 23, '0'), :accountId, 'test', :customerId, 'INV-BULK-' || lpad(g::text, 6, '0'),
            CASE WHEN g % 3 = 0 THEN 'paid' ELSE 'open' END, 'USD',
            '[{"description":"Subscription","quantity":1,"unitAmount":4900,"amount":4900}]', 4900, 0, 4900,
            :newest::timestamptz - make_interval(secs => ${ROWS} - g), CASE WHEN g % 3 = 0 THEN now() END,
            :newest::timestamptz - make_interval(secs => ${ROWS} - g)
       FROM generate_series(1, ${ROWS}) AS g`,
    { replacements: { accountId: ws.accountId, customerId: customer.id, newest } },
  );
  const port = await freePort();
  api = await startWorkerProcess({ PORT: String(port) }, { script: 'api/main.ts', startedMessage: 'api listening', nodeArgs: [`--max-old-space-size=${HEAP_LIMIT_MB}`] });
  baseUrl = `http://127.0.0.1:${port}`;
}, 120_000);

afterAll(async () => {
  await api?.stop();
  await ctx.sequelize.query('DELETE FROM invoices WHERE account_id = :accountId', { replacements: { accountId: ws.accountId } });
  await ctx.close();
});

function request(path: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    httpGet(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${ws.secretKey}` } }, resolve).on('error', reject);
  });
}

/** Reads a response to its end, counting bytes and CRLF-ended records without keeping them. */
function drain(res: IncomingMessage): Promise<{ bytes: number; records: number }> {
  let bytes = 0;
  let records = 0;
  res.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) records += 1;
  });
  res.resume();
  return new Promise((resolve, reject) => {
    res.on('end', () => resolve({ bytes, records }));
    res.on('error', reject);
  });
}

/** The export statement's backend, if it is still open (mid-result or waiting at its cursor). */
async function exportBackend(): Promise<{ state: string } | undefined> {
  const rows = await ctx.sequelize.query<{ state: string }>(
    `SELECT state FROM pg_stat_activity WHERE query LIKE :pattern AND pid <> pg_backend_pid() AND state <> 'idle'`,
    { type: QueryTypes.SELECT, replacements: { pattern: `%${EXPORT_QUERY}%` } },
  );
  return rows[0];
}

it(`streams ${ROWS.toLocaleString('en')} invoices in a ${HEAP_LIMIT_MB} MB heap, pausing at the cursor while the client does not read`, async () => {
  const filteredPath = `/api/v1/payment/invoices/export.csv?createdAfter=${encodeURIComponent(new Date(newest.getTime() - 300_000).toISOString())}`;
  expect((await drain(await request(filteredPath))).records).toBe(301);
  const res = await request('/api/v1/payment/invoices/export.csv');
  expect(res.statusCode).toBe(200);
  // Read the first chunk, then stop reading: socket buffers fill, and the server must stop fetching rows.
  const first: Buffer = await new Promise((resolve) =>
    res.once('data', (chunk: Buffer) => {
      res.pause();
      resolve(chunk);
    }),
  );
  await new Promise((r) => setTimeout(r, 1_500));
  const paused = await exportBackend();
  expect(paused).toBeDefined();
  expect(['active', 'idle in transaction']).toContain(paused!.state);

  res.unshift(first);
  const { bytes, records } = await drain(res);
  expect(records).toBe(ROWS + 1);
  // Far more than the socket buffers between the processes hold, so the pause above did hold rows back.
  expect(bytes).toBeGreaterThan(16_000_000);
  // Still the same process, not killed by the heap limit on the way: it answers the next request.
  expect((await drain(await request(filteredPath))).records).toBe(301);
  // The cursor's connection went back to the pool, its statement finished.
  expect(await exportBackend()).toBeUndefined();
}, 60_000);

it('closes the cursor and returns its connection when the client goes away mid-export', async () => {
  // More aborted exports than the API's pool has connections (DATABASE_POOL_MAX, 10): a leak would hang the last ones.
  for (let i = 0; i < 12; i += 1) {
    const res = await request('/api/v1/payment/invoices/export.csv');
    await new Promise((resolve) => res.once('data', resolve));
    res.destroy();
    const deadline = Date.now() + 5_000;
    while ((await exportBackend()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(await exportBackend()).toBeUndefined();
  }
  const { records } = await drain(await request(`/api/v1/payment/invoices/export.csv?createdAfter=${encodeURIComponent(new Date(newest.getTime() - 10_000).toISOString())}`));
  expect(records).toBe(11);
}, 60_000);
