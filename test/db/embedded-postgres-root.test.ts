/**
 * `npm start` as root in a clone inside a directory only root can enter (mode 0700, like /root): the
 * embedded PostgreSQL runs as the `postgres` user, who must still reach its binaries and its cluster.
 * Runs only as root (the situation does not arise otherwise).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { binariesReachableBy, canEnter, EmbeddedPostgresError, postgresUser, startEmbeddedPostgres } from '../../db/embedded-postgres';
import { freePort } from '../../scripts/lib/free-port';

const asRoot = process.getuid?.() === 0;

(asRoot ? describe : describe.skip)('embedded PostgreSQL started by root behind a 0700 directory', () => {
  let home: string;

  beforeAll(async () => {
    home = await mkdtemp(path.join(tmpdir(), 'root-home-'));
    fs.chmodSync(home, 0o700);
  });
  afterAll(() => rm(home, { recursive: true, force: true }));

  it('starts with DATA_DIR inside it, keeps the data across a restart, and stops', async () => {
    const dataDir = path.join(home, 'clone', '.data', 'postgres');
    expect(canEnter(postgresUser(), path.dirname(dataDir))).toBe(false);
    const port = await freePort();

    const first = await startEmbeddedPostgres({ dataDir, port, persistent: true });
    try {
      await first.createDatabase('commerce');
      const client = new Client({ connectionString: first.url('commerce') });
      await client.connect();
      await client.query('CREATE TABLE kept (id int); INSERT INTO kept VALUES (7)');
      await client.end();
    } finally {
      await first.stop();
    }
    // The cluster lives where the `postgres` user can reach it; DATA_DIR points there.
    expect(fs.lstatSync(dataDir).isSymbolicLink()).toBe(true);

    // Restarted with a connection limit of its own (the test suite's server raises PostgreSQL's default of 100).
    const second = await startEmbeddedPostgres({ dataDir, port, persistent: false, maxConnections: 150 });
    try {
      const client = new Client({ connectionString: second.url('commerce') });
      await client.connect();
      const { rows } = await client.query<{ id: number }>('SELECT id FROM kept');
      const { rows: limit } = await client.query<{ max_connections: string }>('SHOW max_connections');
      await client.end();
      expect(rows).toEqual([{ id: 7 }]);
      expect(limit).toEqual([{ max_connections: '150' }]);
    } finally {
      await second.stop();
    }
    expect(fs.existsSync(dataDir)).toBe(false);
  });

  it('copies binaries the postgres user cannot reach to a shared directory, once', () => {
    const who = postgresUser();
    const packageBin = binariesReachableBy(who);
    // A package installed inside the 0700 directory, as node_modules of a clone in /root would be.
    const hiddenPackage = path.join(home, 'node_modules', 'pkg');
    fs.cpSync(path.dirname(path.dirname(packageBin)), hiddenPackage, { recursive: true, verbatimSymlinks: true });
    const hiddenBin = path.join(hiddenPackage, 'native', 'bin');
    const shared = path.join(home, '..', `${path.basename(home)}-shared`);
    try {
      const bin = binariesReachableBy(who, hiddenBin, shared);
      expect(bin.startsWith(`${shared}/`)).toBe(true);
      const initdb = spawnSync(path.join(bin, 'initdb'), ['--version'], { ...who, encoding: 'utf8' });
      expect(initdb.stdout).toMatch(/initdb \(PostgreSQL\) 15\./);
      expect(binariesReachableBy(who, hiddenBin, shared)).toBe(bin);
    } finally {
      fs.rmSync(shared, { recursive: true, force: true });
    }
  });

  it('refuses an existing unreachable cluster with one line saying what to do', async () => {
    const dataDir = path.join(home, 'old', 'postgres');
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'PG_VERSION'), '15\n');
    const started = startEmbeddedPostgres({ dataDir, port: await freePort(), persistent: true });
    await expect(started).rejects.toBeInstanceOf(EmbeddedPostgresError);
    const message = await started.catch((err: Error) => err.message);
    expect(message).not.toContain('\n');
    expect(message).toContain('set DATA_DIR');
  });
});
