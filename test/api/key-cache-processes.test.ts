import { ApiKey } from '../../db/models';
import { freePort } from '../../scripts/lib/free-port';
import { createTestContext, http, type TestContext } from '../helpers/context';
import { expectError } from '../helpers/expect';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process';
import type { CreatedWorkspace } from '../../domain/workspaces/service';

/**
 * Two real API processes (`api/main.ts`, as deployed) on one database: a revocation through A reaches B's key
 * cache through LISTEN/NOTIFY. B caches for the default 60 s, so a refusal within a few seconds can only come
 * from the notification. The bound is loose on purpose: this suite shares two cores with the others, and a
 * timed test must not measure the machine (docs/decisions/auth.md, "Key lookup cache").
 */
const KEYS = '/api/v1/account/api-keys';
const PROPAGATION_LIMIT_MS = 5_000;

let ctx: TestContext;
let ws: CreatedWorkspace;
const processes: WorkerProcess[] = [];
let a: string;
let b: string;

async function startApiProcess(): Promise<string> {
  const port = await freePort();
  processes.push(await startWorkerProcess({ PORT: String(port) }, { script: 'api/main.ts', startedMessage: 'api listening' }));
  return `http://127.0.0.1:${port}`;
}

beforeAll(async () => {
  ctx = await createTestContext();
  ws = await ctx.createWorkspace();
  [a, b] = await Promise.all([startApiProcess(), startApiProcess()]);
}, 120_000);
afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  await ctx.close();
});

async function newKey(): Promise<{ id: string; value: string }> {
  const res = await http<{ data: { id: string; value: string } }>(a, 'POST', KEYS, {
    key: ws.secretKey,
    body: { name: 'cross-process', environment: 'test', access: 'secret' },
  });
  expect(res.status).toBe(201);
  return res.body.data;
}

const status = async (baseUrl: string, key: string) => (await http(baseUrl, 'GET', KEYS, { key })).status;

/** Until B answers a key revoked behind its back (no notification) with 200, its cache is not serving yet. */
async function waitUntilBServesFromCache(): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const probe = await newKey();
    expect(await status(b, probe.value)).toBe(200);
    await ctx.sequelize.transaction(async (transaction) => {
      await ctx.sequelize.query('SET LOCAL session_replication_role = replica', { transaction });
      await ApiKey.update({ revokedAt: new Date() }, { where: { id: probe.id }, transaction });
    });
    if ((await status(b, probe.value)) === 200) return;
    if (Date.now() > deadline) throw new Error(`process B never served from its key cache\n${processes[1]!.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

it('refuses a key revoked through another process long before its cache entry would expire', async () => {
  await waitUntilBServesFromCache();
  const key = await newKey();
  expect(await status(b, key.value)).toBe(200);

  const revoked = await http(a, 'DELETE', `${KEYS}/${key.id}`, { key: ws.secretKey });
  const answeredAt = performance.now();
  expect(revoked.status).toBe(200);
  let refused = await http(b, 'GET', KEYS, { key: key.value });
  while (refused.status === 200 && performance.now() - answeredAt < PROPAGATION_LIMIT_MS) {
    await new Promise((r) => setTimeout(r, 2));
    refused = await http(b, 'GET', KEYS, { key: key.value });
  }
  const elapsed = performance.now() - answeredAt;
  expectError(refused, 401, 'INVALID_API_KEY');
  expect(elapsed).toBeLessThanOrEqual(PROPAGATION_LIMIT_MS);
  // The revoking process itself refuses it synchronously.
  expectError(await http(a, 'GET', KEYS, { key: key.value }), 401, 'INVALID_API_KEY');
});
