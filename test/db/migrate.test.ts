import { spawn } from 'node:child_process';
import path from 'node:path';
import { Client } from 'pg';
import { Sequelize } from 'sequelize';
import { createMigrator, MIGRATION_LOCK_KEYS } from '../../db/migrate';
import { migrations } from '../../db/migrations';
import { waitFor } from '../helpers/wait';

/**
 * `npm run migrate` as deployed: a one-shot process per replica, serialised by a PostgreSQL advisory lock, and
 * `npm run migrate -- status`. Each test gets an empty database of its own on the suite's PostgreSQL.
 */
const ROOT = path.resolve(__dirname, '..', '..');
const sharedUrl = process.env.DATABASE_URL!;
const names = migrations.map((m) => m.name);

async function admin<T>(work: (client: Client) => Promise<T>, url = sharedUrl): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

let databases = 0;
async function emptyDatabase(): Promise<string> {
  const name = `migrate_${process.pid}_${Date.now()}_${(databases += 1)}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(sharedUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `npm run migrate -- <args>` (npm run -s keeps npm's own banner out of stdout). */
function migrate(databaseUrl: string, args: string[] = []): { done: Promise<Run>; stdout: () => string } {
  const child = spawn('npm', ['run', '-s', 'migrate', '--', ...args], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const done = new Promise<Run>((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
  return { done, stdout: () => stdout };
}

const appliedNames = (url: string) =>
  admin(async (c) => (await c.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name')).rows.map((r) => r.name), url);

/** Sessions waiting for the migration lock, across the whole server. */
const lockWaiters = () =>
  admin(async (c) => {
    const { rows } = await c.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND classid = $1 AND objid = $2 AND objsubid = 2 AND NOT granted",
      [...MIGRATION_LOCK_KEYS],
    );
    return rows[0]?.n ?? 0;
  });

describe('npm run migrate', () => {
  it('two runs started together on a fresh database: one applies every migration, the other waits for it and finds none pending', async () => {
    const url = await emptyDatabase();
    // Holding the lock first makes both runs start while another holds it, so they surely overlap.
    const holder = new Client({ connectionString: url });
    await holder.connect();
    await holder.query('SELECT pg_advisory_lock($1, $2)', [...MIGRATION_LOCK_KEYS]);
    const runs = [migrate(url), migrate(url)];
    try {
      await waitFor(async () => (await lockWaiters()) === 2, { timeoutMs: 45_000, describe: () => 'both runs to wait for the migration lock' });
      for (const run of runs) expect(run.stdout()).toContain('another migration run holds the lock; waiting for it to finish');
      expect(await appliedNames(url).catch(() => [])).toEqual([]);
    } finally {
      await holder.end();
    }

    const results = await Promise.all(runs.map((r) => r.done));
    for (const result of results) expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    const outcomes = results.map((r) => r.stdout.trim().split('\n').pop()).sort();
    expect(outcomes).toEqual([`applied: ${names.join(', ')}`, 'database is up to date']);
    expect(await appliedNames(url)).toEqual([...names].sort());
  }, 90_000);

  it('a run that dies while holding the lock leaves it to the next run (PostgreSQL ends the session)', async () => {
    const url = await emptyDatabase();
    const holder = new Client({ connectionString: url });
    await holder.connect();
    await holder.query('SELECT pg_advisory_lock($1, $2)', [...MIGRATION_LOCK_KEYS]);
    const run = migrate(url);
    await waitFor(async () => (await lockWaiters()) === 1, { timeoutMs: 45_000 });
    // As if the holder's process were killed: its connection goes, and the lock with it.
    holder.on('error', () => undefined);
    await admin((c) => c.query('SELECT pg_terminate_backend($1)', [(holder as unknown as { processID: number }).processID]));
    const result = await run.done;
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`applied: ${names.join(', ')}`);
  }, 90_000);

  it('`-- status` lists applied and pending migrations and changes nothing', async () => {
    const url = await emptyDatabase();
    const sequelize = new Sequelize(url, { dialect: 'postgres', logging: false });
    const half = names[Math.floor(names.length / 2)]!;
    try {
      await createMigrator(sequelize).up({ to: half });
    } finally {
      await sequelize.close();
    }
    const applied = names.slice(0, names.indexOf(half) + 1);
    const pending = names.slice(names.indexOf(half) + 1);

    const status = await migrate(url, ['status']).done;
    expect(status.code).toBe(0);
    expect(status.stdout).toBe(
      [`applied (${applied.length}):`, ...applied.map((n) => `  ${n}`), `pending (${pending.length}):`, ...pending.map((n) => `  ${n}`), ''].join('\n'),
    );
    expect(await appliedNames(url)).toEqual(applied);

    expect((await migrate(url, ['up']).done).code).toBe(0);
    const after = await migrate(url, ['status']).done;
    expect(after.stdout).toContain(`applied (${names.length}):`);
    expect(after.stdout).toContain('pending (0):');
  }, 90_000);

  it('refuses an unknown command with its usage and exit code 2', async () => {
    const result = await migrate(sharedUrl, ['sideways']).done;
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Usage: npm run migrate [-- up | status]');
  }, 30_000);
});
