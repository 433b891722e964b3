import { createCipheriv, randomBytes } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { SEALED_COLUMNS } from '../../db/sealed-columns';
import { createCryptoBox, encryptionKeyId, generateEncryptionKey, parseEncryptionKey } from '../../lib/crypto-box';
import { runCli, type CliResult } from '../helpers/cli';
import { createTestContext, http, type TestApi, type TestContext } from '../helpers/context';
import { usePrivateDatabase } from '../helpers/private-database';

/** `npm run cli -- encryption rotate …` (its main, in this process) on this file's database, with these keys. */
function rotate(env: Record<string, string>, args: string[] = []): Promise<CliResult> {
  return runCli(ctx.sequelize, ['encryption', 'rotate', ...args], { env: { ...process.env, ENCRYPTION_KEYS_RETIRED: '', ...env } });
}

/** A value as the crypto box sealed it before keys had ids. */
function sealV1(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `v1.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
}

usePrivateDatabase('encryption_rotate');

let ctx: TestContext;
let api: TestApi;
const oldKey = () => process.env.ENCRYPTION_KEY!;
const newKey = generateEncryptionKey();

beforeAll(async () => {
  ctx = await createTestContext();
  api = await ctx.startApi();
});
afterAll(() => ctx?.close());

async function sealedValues(): Promise<string[]> {
  const values: string[] = [];
  for (const { table, column } of SEALED_COLUMNS) {
    const rows = await ctx.sequelize.query<{ value: string }>(`SELECT ${column} AS value FROM ${table} WHERE ${column} IS NOT NULL`, { type: QueryTypes.SELECT });
    values.push(...rows.map((r) => r.value));
  }
  return values;
}

describe('npm run cli -- encryption rotate', () => {
  it('lists every sealed column of the schema', async () => {
    const columns = await ctx.sequelize.query<{ table: string; column: string }>(
      `SELECT table_name AS "table", column_name AS "column" FROM information_schema.columns
        WHERE table_schema = current_schema() AND column_name LIKE '%\\_sealed'`,
      { type: QueryTypes.SELECT },
    );
    expect(columns.length).toBeGreaterThan(0);
    for (const c of columns) expect(SEALED_COLUMNS).toContainEqual(expect.objectContaining(c));
  });

  it('after a rotation: old values still open, the command re-seals them under the new key, then the old key can go', async () => {
    const ws = await ctx.createWorkspace();
    const bank = await http(api.baseUrl, 'PATCH', '/api/v1/payouts/bank-account', {
      key: ws.secretKey,
      body: { bankName: 'Bank Central Asia', bankAccountNumber: 'ACCT-2718281828', bankAccountHolder: 'Toko Rotasi' },
    });
    expect(bank.status).toBe(200);
    const endpoint = await http<{ data: { id: string; secret: string } }>(api.baseUrl, 'POST', '/api/v1/payment/webhook-endpoints', {
      key: ws.secretKey,
      body: { url: 'https://hooks.example.com/rotation', events: ['checkout.completed'] },
    });
    expect(endpoint.status).toBe(201);
    const legacy = await http<{ data: { id: string } }>(api.baseUrl, 'POST', '/api/v1/payment/webhook-endpoints', {
      key: ws.secretKey,
      body: { url: 'https://hooks.example.com/legacy', events: ['checkout.completed'] },
    });
    // A secret sealed before keys had ids (`v1.`), under the key of that time.
    await ctx.sequelize.query('UPDATE webhook_endpoints SET secret_sealed = $1 WHERE id = $2', { bind: [sealV1(parseEncryptionKey(oldKey()), 'whsec_legacy'), legacy.body.data.id] });

    const rotated = { ENCRYPTION_KEY: newKey, ENCRYPTION_KEYS_RETIRED: oldKey() };
    // The service runs on after the rotation: what the old key sealed still opens.
    const rotatedApi = await ctx.startApi(rotated);
    const read = await http<{ data: { bankAccountNumber: string } }>(rotatedApi.baseUrl, 'GET', '/api/v1/payouts/bank-account', { key: ws.secretKey });
    expect(read.body.data.bankAccountNumber).toBe('ACCT-2718281828');

    // Without the retired key, nothing opens and nothing is written: exit 1, the rows named.
    // (Workspaces get system-managed endpoints too, each with a sealed secret.)
    const total = (await sealedValues()).length;
    const [{ endpoints }] = await ctx.sequelize.query<{ endpoints: number }>('SELECT count(*)::int AS endpoints FROM webhook_endpoints', { type: QueryTypes.SELECT }) as [{ endpoints: number }];
    const refused = await rotate({ ENCRYPTION_KEY: newKey });
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({ rewritten: 0, unreadable: total });
    expect(refused.stdout).toContain(`${ws.accountId}/test`);

    const done = await rotate(rotated, ['--batch-size', '1']);
    expect({ code: done.code, stderr: done.stderr }).toEqual({ code: 0, stderr: expect.stringContaining(`webhook_endpoints.secret_sealed: ${endpoints}/${endpoints}`) });
    expect(done.stderr).toContain(`webhook_endpoints.secret_sealed: 1/${endpoints}`);
    expect(JSON.parse(done.stdout)).toMatchObject({ keyId: encryptionKeyId(parseEncryptionKey(newKey)), rewritten: total, unreadable: 0 });
    const values = await sealedValues();
    expect(values).toHaveLength(total);
    for (const value of values) expect(value.startsWith(`v2.${encryptionKeyId(parseEncryptionKey(newKey))}.`)).toBe(true);

    // The old key is gone from the configuration: everything still opens.
    const box = createCryptoBox(parseEncryptionKey(newKey));
    const secrets = await ctx.sequelize.query<{ id: string; sealed: string }>('SELECT id, secret_sealed AS sealed FROM webhook_endpoints', { type: QueryTypes.SELECT });
    expect(Object.fromEntries(secrets.map((s) => [s.id, box.open(s.sealed)]))).toMatchObject({ [endpoint.body.data.id]: endpoint.body.data.secret, [legacy.body.data.id]: 'whsec_legacy' });
    const newOnlyApi = await ctx.startApi({ ENCRYPTION_KEY: newKey });
    const after = await http<{ data: { bankAccountNumber: string } }>(newOnlyApi.baseUrl, 'GET', '/api/v1/payouts/bank-account', { key: ws.secretKey });
    expect(after.body.data.bankAccountNumber).toBe('ACCT-2718281828');

    // Idempotent: a second run finds nothing left to do.
    const again = await rotate({ ENCRYPTION_KEY: newKey });
    expect({ code: again.code, result: JSON.parse(again.stdout) }).toMatchObject({ code: 0, result: { rewritten: 0, unreadable: 0 } });
  }, 120_000);
});
