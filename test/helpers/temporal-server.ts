import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { Client as PgClient } from 'pg';
import { provisionTemporalBinaries, temporalCliExecutable, temporalServerTools } from '../../scripts/lib/temporal-binaries';
import { SEARCH_ATTRIBUTES } from '../../workflows/messages';

const run = promisify(execFile);

/**
 * A port free on 127.0.0.1 below 32768: Temporal keeps its services' membership ports in a SMALLINT column
 * (cluster_membership.rpc_port), so the kernel's ephemeral ports (32768 and up) fail its start-up.
 */
async function freeLowPort(): Promise<number> {
  for (;;) {
    const candidate = 10_000 + Math.floor(Math.random() * 22_000);
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(candidate, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return candidate;
  }
}
const TAIL_LINES = 60;

export interface TemporalServer {
  /** `127.0.0.1:<port>`: the frontend's gRPC address, for TEMPORAL_ADDRESS. */
  address: string;
  namespace: string;
  /** The two databases it keeps its state in, on the PostgreSQL it was given. */
  databases: { temporal: string; visibility: string };
  numHistoryShards: number;
  /** The server process, for CPU figures. */
  pid: number;
  /** Last lines of the server's output, for failure messages. */
  output(): string;
  /** SIGTERM (the server drains its shards), SIGKILL after 30 s; then drops its databases. */
  stop(): Promise<void>;
}

export interface TemporalServerOptions {
  /** Any database URL of the PostgreSQL to keep Temporal's state on (its credentials must create databases). */
  postgresUrl: string;
  namespace?: string;
  /** Fixed for the cluster's life; production's compose file uses 512. */
  numHistoryShards?: number;
  /**
   * Databases that already hold a cluster (restored from a backup, test/e2e/restore-drill.test.ts): the server starts
   * on them as they are, without schema setup or namespace registration. Pass the cluster's `numHistoryShards` (the server keeps its own).
   */
  databases?: { temporal: string; visibility: string };
}

/**
 * The production Temporal server (go.temporal.io/server, built by scripts/provision.sh), not the CLI's dev server:
 * PostgreSQL persistence in two databases of its own, created and given their schema by temporal-sql-tool from the
 * module's schema files; then, as docker-compose.yml's one-shots do, the namespace registered with the Temporal CLI
 * once `operator cluster health` answers, and the search attributes the workflows set (AccountId, LifecycleState) added.
 */
export async function startTemporalServer(options: TemporalServerOptions): Promise<TemporalServer> {
  await provisionTemporalBinaries(['temporal-server'], 'the scale-out test runs the production Temporal server on PostgreSQL');
  const tools = temporalServerTools();
  if (!tools) throw new Error('the Temporal server is not provisioned: run `npm run provision` (it builds it from its Go module) or set TEMPORAL_SERVER_PATH');
  const cli = temporalCliExecutable();
  if (cli.type !== 'existing-path') throw new Error('the Temporal CLI is not provisioned: run `npm run provision` or set TEMPORAL_CLI_PATH');
  const namespace = options.namespace ?? 'default';
  const numHistoryShards = options.numHistoryShards ?? 4;

  const pg = new URL(options.postgresUrl);
  const suffix = `${process.pid}_${Date.now()}`;
  const restored = options.databases !== undefined;
  const databases = options.databases ?? { temporal: `temporal_${suffix}`, visibility: `temporal_visibility_${suffix}` };
  const sql = (database: string, ...args: string[]) =>
    run(tools.sqlTool, ['--plugin', 'postgres12', '--ep', pg.hostname, '--port', pg.port, '--user', decodeURIComponent(pg.username), '--password', decodeURIComponent(pg.password), '--db', database, ...args]);
  for (const [database, schema] of restored
    ? []
    : ([
        [databases.temporal, 'temporal'],
        [databases.visibility, 'visibility'],
      ] as const)) {
    await sql(database, 'create');
    await sql(database, 'setup-schema', '-v', '0.0');
    await sql(database, 'update-schema', '-d', path.join(tools.schemaDir, 'postgresql', 'v12', schema, 'versioned'));
  }

  const root = await mkdtemp(path.join(tmpdir(), 'temporal-server-'));
  const taken = new Set<number>();
  const port = async (): Promise<number> => {
    for (;;) {
      const candidate = await freeLowPort();
      if (!taken.has(candidate)) {
        taken.add(candidate);
        return candidate;
      }
    }
  };
  const frontend = await port();
  const rpc = async (grpcPort: number) => ({ rpc: { grpcPort, membershipPort: await port(), bindOnLocalHost: true } });
  const store = (databaseName: string, maxConns: number) => ({
    sql: {
      pluginName: 'postgres12',
      databaseName,
      connectAddr: `${pg.hostname}:${pg.port}`,
      connectProtocol: 'tcp',
      user: decodeURIComponent(pg.username),
      password: decodeURIComponent(pg.password),
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: '1h',
    },
  });
  // The shape of the module's config/development-postgres12.yaml, less metrics, pprof and archival. JSON is YAML.
  const config = {
    log: { stdout: true, level: 'warn' },
    persistence: {
      defaultStore: 'default',
      visibilityStore: 'visibility',
      numHistoryShards,
      datastores: { default: store(databases.temporal, 20), visibility: store(databases.visibility, 10) },
    },
    global: { membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' } },
    services: {
      frontend: { rpc: { ...(await rpc(frontend)).rpc, httpPort: await port() } },
      history: await rpc(await port()),
      matching: await rpc(await port()),
      worker: await rpc(await port()),
    },
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: { active: { enabled: true, initialFailoverVersion: 1, rpcName: 'frontend', rpcAddress: `127.0.0.1:${frontend}` } },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    // As docker-compose.yml's: PostgreSQL keeps workflow ids in VARCHAR(255).
    dynamicConfigClient: { filepath: path.join(root, 'dynamicconfig.yaml'), pollInterval: '10s' },
  };
  await mkdir(path.join(root, 'config'));
  await writeFile(path.join(root, 'config', 'production.yaml'), JSON.stringify(config, null, 2));
  await writeFile(path.join(root, 'dynamicconfig.yaml'), 'limit.maxIDLength:\n  - value: 255\n    constraints: {}\n');

  const child: ChildProcess = spawn(tools.server, ['--root', root, '--config', 'config', '--env', 'production', '--allow-no-auth', 'start'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: root },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tail: string[] = [];
  const onOutput = (chunk: Buffer) => {
    tail.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    tail.splice(0, Math.max(0, tail.length - TAIL_LINES));
  };
  child.stdout?.on('data', onOutput);
  child.stderr?.on('data', onOutput);
  let exit: string | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exit = signal ? `signal ${signal}` : `code ${code}`;
      resolve();
    });
  });
  const output = () => tail.join('\n');
  const address = `127.0.0.1:${frontend}`;

  const stop = async () => {
    if (!exit) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(killer);
    }
    await rm(root, { recursive: true, force: true });
    const admin = new PgClient({ connectionString: options.postgresUrl });
    await admin.connect();
    try {
      for (const database of Object.values(databases)) await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    } finally {
      await admin.end();
    }
  };
  const temporal = (...args: string[]) => run(cli.path, [...args, '--address', address], { timeout: 30_000 });

  try {
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (exit) throw new Error(`the Temporal server exited with ${exit} before it answered`);
      const healthy = await temporal('operator', 'cluster', 'health').then(
        (r) => r.stdout.includes('SERVING'),
        () => false,
      );
      if (healthy) break;
      if (Date.now() > deadline) throw new Error('the Temporal server did not answer `operator cluster health` within 120 s');
      await new Promise((r) => setTimeout(r, 500));
    }
    if (!restored) {
      await temporal('operator', 'namespace', 'create', '--namespace', namespace, '--retention', '24h');
      for (const key of SEARCH_ATTRIBUTES) await temporal('operator', 'search-attribute', 'create', '--namespace', namespace, '--name', key.name, '--type', 'Keyword');
    }
    await untilSearchAttributeUsable(address, namespace);
  } catch (err) {
    await stop();
    throw new Error(`${(err as Error).message}\n--- Temporal server output ---\n${output()}`);
  }
  return { address, namespace, databases, numHistoryShards, pid: child.pid!, output, stop };
}

/**
 * The frontend learns a namespace's new search attribute from its namespace cache, refreshed every 10 s or so: until
 * then a start that sets one is refused. Probes with a start setting them all (terminated at once) until one is accepted.
 */
async function untilSearchAttributeUsable(address: string, namespace: string): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    const client = new Client({ connection, namespace });
    const deadline = Date.now() + 60_000;
    for (let n = 0; ; n += 1) {
      try {
        const handle = await client.workflow.start('searchAttributeProbe', {
          taskQueue: 'search-attribute-probe',
          workflowId: `search-attribute-probe-${n}`,
          typedSearchAttributes: SEARCH_ATTRIBUTES.map((key) => ({ key, value: 'probe' })),
        });
        await handle.terminate('probe');
        return;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  } finally {
    await connection.close();
  }
}
