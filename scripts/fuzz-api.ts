/**
 * Fuzzes the whole API from its own OpenAPI document with schemathesis (scripts/fuzz-api.sh installs it and
 * runs this). Starts a throwaway embedded PostgreSQL (migrated) and Temporal dev server as the test suite
 * does, a pro-plan workspace, and the real app on a free loopback port; then runs schemathesis against
 * /api/openapi.json and exits with its status: non-zero on any 5xx, undocumented status, content type or
 * response shape, or accepted invalid input. Every route registered through ApiRouter is fuzzed.
 *
 *   SCHEMATHESIS=/path/to/schemathesis FUZZ_SECONDS=120 npx tsx scripts/fuzz-api.ts [extra schemathesis args]
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { createApp } from '../api/app';
import { createDatabase } from '../db/connection';
import { startEmbeddedPostgres } from '../db/embedded-postgres';
import { migrateToLatest } from '../db/migrate';
import { createWorkspaceService } from '../domain/workspaces';
import { loadConfig, requireEncryptionKey } from '../lib/config';
import { createCryptoBox, generateEncryptionKey } from '../lib/crypto-box';
import { createLogger } from '../lib/logger';
import { startPaymentSandbox } from '../lib/payment-provider/sandbox';
import { SEARCH_ATTRIBUTES } from '../workflows/messages';
import { freePort } from './lib/free-port';
import { temporalCliExecutable } from './lib/temporal-binaries';

/**
 * Left out of fuzzing: revoking an API key, since the run's stateful phase would sooner or later find and
 * revoke the very key it authenticates with, leaving nothing but 401s (the route's validation and 404 are
 * covered by test/api/api-keys.test.ts).
 */
const EXCLUDED = ['--exclude-name', 'DELETE /v1/account/api-keys/{id}'];

/**
 * Checks that cannot hold for this API by design, each for a stated reason:
 * - positive_data_acceptance: valid-looking data is refused by rules no schema can state (unknown productId,
 *   taken slug, plan quotas, impossible dates such as 2023-02-30, unreachable webhook hosts);
 * - unsupported_method: an undeclared method answers 404 ROUTE_NOT_FOUND today, not 405;
 * - use_after_free: DELETE of a product archives it, and document 1 keeps an archived product retrievable.
 */
const EXCLUDED_CHECKS = ['positive_data_acceptance', 'unsupported_method', 'use_after_free'];

async function main(): Promise<number> {
  const schemathesis = process.env.SCHEMATHESIS ?? 'schemathesis';
  const seconds = process.env.FUZZ_SECONDS ?? '120';
  const root = await mkdtemp(path.join(tmpdir(), 'commerce-fuzz-'));
  const cleanups: Array<() => Promise<unknown>> = [() => rm(root, { recursive: true, force: true })];
  try {
    const pg = await startEmbeddedPostgres({ dataDir: path.join(root, 'pg'), port: await freePort(), persistent: false });
    cleanups.unshift(() => pg.stop());
    await pg.createDatabase('commerce_fuzz');
    const temporalEnv = await TestWorkflowEnvironment.createLocal({ server: { executable: temporalCliExecutable(), searchAttributes: [...SEARCH_ATTRIBUTES] } });
    cleanups.unshift(() => temporalEnv.teardown());

    // The payment module's routes need a provider once the fuzzer switches the module on: the built-in sandbox,
    // as `npm start` runs it, for both environments.
    const port = await freePort();
    const accounts = ['live', 'test'].map((mode) => ({ secretKey: `xnd_fuzz_${mode}_${randomBytes(16).toString('hex')}`, callbackToken: randomBytes(32).toString('hex') }));
    const sandbox = await startPaymentSandbox({ accounts, callbackUrl: `http://127.0.0.1:${port}/api/v1/payment/provider-webhooks`, port: 0 });
    cleanups.unshift(() => sandbox.close());

    const config = loadConfig({
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
      PORT: '0',
      DATABASE_URL: pg.url('commerce_fuzz'),
      ENCRYPTION_KEY: generateEncryptionKey(),
      FILE_STORAGE_DIR: path.join(root, 'files'),
      // Generated hosts are not resolved (CI has no DNS beyond the registries), and the fuzzer is not rate limited.
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      RATE_LIMIT_PER_MINUTE: '10000000',
      PUBLIC_RATE_LIMIT_PER_MINUTE: '10000000',
      PAYMENT_PROVIDER_BASE_URL: sandbox.baseUrl,
      PAYMENT_PROVIDER_SECRET_KEY: accounts[0]!.secretKey,
      PAYMENT_PROVIDER_CALLBACK_TOKEN: accounts[0]!.callbackToken,
      PAYMENT_PROVIDER_TEST_SECRET_KEY: accounts[1]!.secretKey,
      PAYMENT_PROVIDER_TEST_CALLBACK_TOKEN: accounts[1]!.callbackToken,
    });
    const sequelize = createDatabase({ url: pg.url('commerce_fuzz'), poolMax: 5 });
    cleanups.unshift(() => sequelize.close());
    await migrateToLatest(sequelize);
    const workspace = await createWorkspaceService({ sequelize }).create({ name: 'Fuzz', slug: 'fuzz', plan: 'pro' });

    const api = createApp({
      config,
      sequelize,
      temporal: temporalEnv.client,
      logger: createLogger(config.LOG_LEVEL, 'api-fuzz'),
      box: createCryptoBox(requireEncryptionKey(config)),
    });
    const server = await new Promise<Server>((resolve) => {
      const s = api.app.listen(port, '127.0.0.1', () => resolve(s));
    });
    cleanups.unshift(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
      () => api.close(),
    );

    const args = [
      'run',
      `http://127.0.0.1:${port}/api/openapi.json`,
      '--header',
      `Authorization: Bearer ${workspace.secretKey}`,
      // The document declares X-Account-Id on every keyed operation; a generated value names no workspace of the key,
      // so every such request would be refused 403 before the route ran.
      '--header',
      `X-Account-Id: ${workspace.accountId}`,
      '--phases',
      'examples,coverage,fuzzing,stateful',
      '--mode',
      'all',
      '--checks',
      'all',
      '--exclude-checks',
      EXCLUDED_CHECKS.join(','),
      '--max-time',
      seconds,
      // One worker: with two, hypothesis parses lambda sources concurrently and CPython 3.11's ast.parse
      // sometimes fails ("AST constructor recursion depth mismatch"), an error of the tool, not of the API.
      '--workers',
      '1',
      '--seed',
      process.env.FUZZ_SEED ?? String(Date.now() % 1_000_000),
      ...EXCLUDED,
      ...process.argv.slice(2),
    ];
    console.log(`fuzz-api: ${schemathesis} ${args.join(' ').replace(workspace.secretKey, 'sk_test_…')}`);
    const child = spawn(schemathesis, args, { stdio: 'inherit' });
    return await new Promise<number>((resolve, reject) => {
      child.on('error', reject);
      child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    });
  } finally {
    for (const cleanup of cleanups) await cleanup().catch((err: unknown) => console.error('fuzz-api: cleanup failed:', err));
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
