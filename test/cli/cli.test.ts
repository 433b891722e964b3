import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Account, AuditLog } from '../../db/models';
import { API_KEY_PATTERN } from '../../lib/api-key-secrets';
import { writeStackState } from '../../scripts/lib/local-stack';
import { runCli as runCliIn, singleJson, spawnCli, type CliResult } from '../helpers/cli';
import { createTestContext, http, type TestApi, type TestContext } from '../helpers/context';

let counter = 0;
const uniqueSlug = () => `cli-${Date.now().toString(36)}-${process.pid.toString(36)}-${(counter += 1)}`;

describe('npm run cli', () => {
  let ctx: TestContext;
  let api: TestApi;

  beforeAll(async () => {
    ctx = await createTestContext();
    api = await ctx.startApi();
  });

  const runCli = (args: string[]): Promise<CliResult> => runCliIn(ctx.sequelize, args);

  afterAll(async () => {
    await ctx.close();
  });

  describe('workspace create', () => {
    let created: Record<string, unknown>;
    let slug: string;

    beforeAll(async () => {
      slug = uniqueSlug();
      created = singleJson(await runCli(['workspace', 'create', '--name', 'Acme', '--slug', slug]));
    });

    it('prints exactly one JSON object with the workspace id, slug and its four keys', async () => {
      expect(Object.keys(created).sort()).toEqual(
        ['accountId', 'livePublishableKey', 'liveSecretKey', 'publishableKey', 'secretKey', 'slug'].sort(),
      );
      expect(created.accountId).toMatch(/^acc_/);
      expect(created.slug).toBe(slug);
      expect(created.secretKey).toMatch(/^sk_test_/);
      expect(created.publishableKey).toMatch(/^pk_test_/);
      expect(created.liveSecretKey).toMatch(/^sk_live_/);
      expect(created.livePublishableKey).toMatch(/^pk_live_/);
      for (const key of ['secretKey', 'publishableKey', 'liveSecretKey', 'livePublishableKey']) {
        expect(created[key]).toMatch(API_KEY_PATTERN);
      }
      const account = await Account.findByPk(created.accountId as string);
      expect(account).toMatchObject({ name: 'Acme', slug, plan: 'free' });
    });

    it('hands out keys that authenticate against the API, each in its environment', async () => {
      const test = await http<{ data: { environment: string; access: string }[] }>(api.baseUrl, 'GET', '/api/v1/account/api-keys', {
        key: created.secretKey as string,
      });
      expect(test.status).toBe(200);
      expect(test.body.data.map((k) => `${k.environment}/${k.access}`).sort()).toEqual(['test/publishable', 'test/secret']);

      const live = await http<{ data: { environment: string }[] }>(api.baseUrl, 'GET', '/api/v1/account/api-keys', {
        key: created.liveSecretKey as string,
      });
      expect(live.status).toBe(200);
      expect(live.body.data.every((k) => k.environment === 'live')).toBe(true);
    });

    it('refuses a slug that is taken: non-zero exit, a message on stderr, nothing on stdout', async () => {
      const result = await runCli(['workspace', 'create', '--name', 'Acme again', '--slug', slug]);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(new RegExp(`slug "${slug}" is taken`));
    });

    it('takes --plan', async () => {
      const pro = singleJson(await runCli(['workspace', 'create', '--name', 'Pro shop', '--slug', uniqueSlug(), '--plan', 'pro']));
      expect((await Account.findByPk(pro.accountId as string))?.plan).toBe('pro');
    });

    it('rejects a bad --plan with exit code 2 before writing anything', async () => {
      const name = `Bad plan ${uniqueSlug()}`;
      const before = await Account.count({ where: { name } });
      const result = await runCli(['workspace', 'create', '--name', name, '--slug', uniqueSlug(), '--plan', 'platinum']);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/--plan must be one of free, starter, pro/);
      expect(await Account.count({ where: { name } })).toBe(before);
    });
  });

  it('rejects missing or unknown arguments with exit code 2 and the usage on stderr', async () => {
    // One as a process of its own: the exit code is the process's.
    const [missing, unknown, flag] = await Promise.all([
      spawnCli(['workspace', 'create', '--slug', uniqueSlug()]),
      runCli(['workspace', 'delete']),
      runCli(['modules', 'set', '--account', 'acc_X', '--module', 'payment', '--enabled', 'true', '--force']),
    ]);
    expect(missing).toMatchObject({ code: 2, stdout: '' });
    expect(missing.stderr).toMatch(/--name is required/);
    expect(missing.stderr).toMatch(/Usage: npm run cli/);

    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr).toMatch(/unknown command "workspace delete"/);

    expect(flag).toMatchObject({ code: 2, stdout: '' });
    expect(flag.stderr).toMatch(/--force/);
  });

  it('keys create mints a working key with an audit entry and no actor key', async () => {
    const workspace = await ctx.createWorkspace();
    const key = singleJson(
      await runCli(['keys', 'create', '--account', workspace.accountId, '--name', 'CI', '--environment', 'test', '--access', 'secret']),
    );
    expect(key).toMatchObject({ name: 'CI', environment: 'test', access: 'secret', prefix: 'sk_test_', revokedAt: null });
    expect(key.id).toMatch(/^key_/);
    expect(key.value).toMatch(API_KEY_PATTERN);
    expect((key.value as string).endsWith(key.last4 as string)).toBe(true);

    const listed = await http<{ data: { id: string }[] }>(api.baseUrl, 'GET', '/api/v1/account/api-keys', { key: key.value as string });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((k) => k.id)).toContain(key.id);

    const entry = await AuditLog.findOne({ where: { targetId: key.id as string } });
    expect(entry).toMatchObject({ action: 'api_key.created', actorApiKeyId: null, accountId: workspace.accountId, environment: 'test' });

    const [publishable, unknown, badAccess] = await Promise.all([
      runCli(['keys', 'create', '--account', workspace.accountId, '--name', 'Site', '--environment', 'live', '--access', 'publishable']),
      runCli(['keys', 'create', '--account', 'acc_00000000000000000000000000', '--name', 'CI', '--environment', 'test', '--access', 'secret']),
      runCli(['keys', 'create', '--account', workspace.accountId, '--name', 'CI', '--environment', 'test', '--access', 'admin']),
    ]);
    expect(singleJson(publishable)).toMatchObject({ environment: 'live', access: 'publishable', prefix: 'pk_live_' });
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toMatch(/Workspace acc_0+ not found/);
    expect(badAccess).toMatchObject({ code: 2, stdout: '' });
    expect(badAccess.stderr).toMatch(/--access must be one of secret, publishable/);
  });

  it('modules set switches a module and prints both flags', async () => {
    const workspace = await ctx.createWorkspace();
    const flags = singleJson(await runCli(['modules', 'set', '--account', workspace.accountId, '--module', 'fulfillment', '--enabled', 'true']));
    expect(flags).toEqual({ fulfillment: true, payment: false });

    const viaApi = await http<{ data: unknown }>(api.baseUrl, 'GET', '/api/v1/modules', { key: workspace.secretKey });
    expect(viaApi.status).toBe(200);
    expect(viaApi.body.data).toEqual({ fulfillment: true, payment: false });

    const bad = await runCli(['modules', 'set', '--account', workspace.accountId, '--module', 'fulfillment', '--enabled', 'yes']);
    expect(bad).toMatchObject({ code: 2, stdout: '' });
  });

  // How the CLI finds its database is the process's own business: these run it as `npm run cli` does.
  describe('without DATABASE_URL', () => {
    let dataDir: string;
    let env: NodeJS.ProcessEnv;

    beforeEach(async () => {
      dataDir = await mkdtemp(path.join(tmpdir(), 'cli-data-'));
      env = { ...process.env, DATA_DIR: dataDir };
      delete env.DATABASE_URL;
    });

    afterEach(async () => {
      await rm(dataDir, { recursive: true, force: true });
    });

    it('says to set DATABASE_URL or run `npm start` when no stack is running', async () => {
      const result = await spawnCli(['workspace', 'create', '--name', 'Acme', '--slug', uniqueSlug()], { env });
      expect(result).toMatchObject({ code: 1, stdout: '' });
      expect(result.stderr).toMatch(/DATABASE_URL/);
      expect(result.stderr).toMatch(/npm start/);
    });

    it('uses the database of the running `npm start` recorded in DATA_DIR', async () => {
      writeStackState(dataDir, {
        pid: process.pid, // alive for as long as this test runs
        databaseUrl: ctx.config.DATABASE_URL as string,
        temporalAddress: ctx.config.TEMPORAL_ADDRESS,
        temporalNamespace: ctx.config.TEMPORAL_NAMESPACE,
        apiBaseUrl: `${api.baseUrl}/api`,
        temporalUiUrl: null,
        startedAt: new Date().toISOString(),
      });
      const created = singleJson(await spawnCli(['workspace', 'create', '--name', 'Via stack file', '--slug', uniqueSlug()], { env }));
      expect(await Account.findByPk(created.accountId as string)).not.toBeNull();
    });
  });
});
