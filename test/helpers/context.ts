import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import type { Sequelize } from 'sequelize';
import { createApp, type Api } from '../../api/app';
import { connectTemporal } from '../../api/temporal-client';
import { createWorkspaceService, type CreatedWorkspace } from '../../domain/workspaces/service';
import { createDatabase } from '../../db/connection';
import type { Plan } from '../../db/models';
import { loadConfig, requireDatabaseUrl, requireKeyRing, type Config } from '../../lib/config';
import { createCryptoBox } from '../../lib/crypto-box';
import { createLogger, type Logger } from '../../lib/logger';
import { watchDeclaredStatuses, type Operations } from './declared-statuses';

export interface TestApi extends Pick<Api, 'keyCache' | 'keyListener'> {
  baseUrl: string;
  server: Server;
  close(): Promise<void>;
}

export interface TestContext {
  config: Config;
  sequelize: Sequelize;
  temporal: Client;
  /** Boots another full API instance on an ephemeral port (same database, same Temporal); `logger` e.g. to capture its lines. */
  startApi(env?: Record<string, string>, options?: { logger?: Logger }): Promise<TestApi>;
  createWorkspace(options?: { plan?: Plan; slug?: string | null }): Promise<CreatedWorkspace>;
  close(): Promise<void>;
}

let counter = 0;

/** Real PostgreSQL and Temporal from globalSetup; one context per test file. */
export async function createTestContext(): Promise<TestContext> {
  const config = loadConfig({ ...process.env, PORT: '0' });
  const sequelize = createDatabase({ url: requireDatabaseUrl(config), poolMax: 5 });
  const temporal = await connectTemporal({ address: config.TEMPORAL_ADDRESS, namespace: config.TEMPORAL_NAMESPACE, keyRing: requireKeyRing(config) });
  const workspaces = createWorkspaceService({ sequelize });
  const apis: TestApi[] = [];

  return {
    config,
    sequelize,
    temporal,
    async startApi(env = {}, { logger } = {}) {
      const appConfig = loadConfig({ ...process.env, PORT: '0', ...env });
      const { app, keyCache, keyListener, close } = createApp({
        config: appConfig,
        sequelize,
        temporal,
        logger: logger ?? createLogger(appConfig.LOG_LEVEL, 'api-test'),
        box: createCryptoBox(requireKeyRing(appConfig)),
      });
      const server = await new Promise<Server>((resolve) => {
        const s = app.listen(0, '127.0.0.1', () => resolve(s));
      });
      const statuses = watchDeclaredStatuses(server);
      const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      let checked = false;
      const api: TestApi = {
        baseUrl,
        server,
        keyCache,
        keyListener,
        close: async () => {
          // The document this instance serves, read while it still listens (once: a second close finds it closed).
          const document = !checked && statuses.answered() > 0 ? ((await (await fetch(`${baseUrl}/api/openapi.json`)).json()) as { paths: Operations }) : null;
          checked = true;
          await new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeAllConnections();
          });
          await close();
          const undeclared = document ? statuses.undeclared(document) : [];
          if (undeclared.length > 0) throw new Error(`The OpenAPI document does not declare statuses the API answered in these tests (declare them in the route's errors):\n${undeclared.join('\n')}`);
        },
      };
      apis.push(api);
      return api;
    },
    createWorkspace({ plan, slug } = {}) {
      counter += 1;
      const unique = `t${Date.now().toString(36)}${process.pid.toString(36)}${counter}`;
      return workspaces.create({ name: `Workspace ${unique}`, slug: slug === undefined ? unique : slug, plan });
    },
    async close() {
      await Promise.all(apis.map((a) => a.close()));
      await temporal.connection.close();
      await sequelize.close();
    },
  };
}

export interface HttpResult<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** A real HTTP call over a real socket. */
export async function http<T = Record<string, unknown>>(
  baseUrl: string,
  method: string,
  path: string,
  options: { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // non-JSON bodies (docs page) stay as text
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

/**
 * Registers the usual per-file setup: a test context and one API instance (env overrides optional),
 * both closed after the file. Read them inside tests, after beforeAll has run.
 */
export function useTestApi(env: Record<string, string> = {}): { readonly ctx: TestContext; readonly api: TestApi } {
  let ctx: TestContext | undefined;
  let api: TestApi | undefined;
  beforeAll(async () => {
    ctx = await createTestContext();
    api = await ctx.startApi(env);
  });
  afterAll(() => ctx?.close());
  return {
    get ctx() {
      return ctx!;
    },
    get api() {
      return api!;
    },
  };
}
