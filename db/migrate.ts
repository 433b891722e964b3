import { Client, type ClientConfig } from 'pg';
import { Sequelize } from 'sequelize';
import { SequelizeStorage, Umzug } from 'umzug';
import { ConfigError, loadConfig, requireDatabaseUrl } from '../lib/config';
import { migrations } from './migrations';

/**
 * The session advisory lock every migration run holds: two `int4` keys (a key space of their own, apart from the
 * single-`bigint` keys the request paths lock), so replicas that start together run the migrations one at a time
 * and the later ones find nothing pending.
 */
export const MIGRATION_LOCK_KEYS = [0x636f6d6d /* "comm" */, 1] as const;

/** Umzug over the static migration list; applied names are kept in the `schema_migrations` table. */
export function createMigrator(sequelize: Sequelize) {
  return new Umzug({
    migrations: migrations.map((m) => ({
      name: m.name,
      up: () => m.up(sequelize.getQueryInterface()),
      down: () => m.down(sequelize.getQueryInterface()),
    })),
    storage: new SequelizeStorage({ sequelize, tableName: 'schema_migrations' }),
    logger: undefined,
  });
}

/** A connection outside the pool, to the database `sequelize` uses (a pool of one must stay free for the migrations). */
function lockClient(sequelize: Sequelize): Client {
  const { host, port, username, password, database, dialectOptions } = sequelize.config;
  return new Client({
    ...(dialectOptions as ClientConfig | undefined),
    host,
    port: port === undefined ? undefined : Number(port),
    user: username,
    password: password ?? undefined,
    database,
    application_name: 'migrations lock',
  });
}

/**
 * Runs `work` while holding the migration lock on a connection of its own. Ending that connection releases the
 * lock, and so does PostgreSQL when the process dies. `onWait` hears once when another run holds the lock and
 * this one waits for it.
 */
export async function withMigrationLock<T>(sequelize: Sequelize, work: () => Promise<T>, onWait?: () => void): Promise<T> {
  const [classId, objId] = MIGRATION_LOCK_KEYS;
  const client = lockClient(sequelize);
  // No 'error' listener on purpose: losing this connection loses the lock, so the process must not carry on
  // migrating beside another run; the unhandled error ends it (non-zero), and the next run starts over.
  await client.connect();
  try {
    const tried = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS locked', [classId, objId]);
    if (tried.rows[0]?.locked !== true) {
      onWait?.();
      await client.query('SELECT pg_advisory_lock($1, $2)', [classId, objId]);
    }
    return await work();
  } finally {
    await client.end();
  }
}

export async function migrateToLatest(sequelize: Sequelize, onWait?: () => void): Promise<string[]> {
  const applied = await withMigrationLock(sequelize, () => createMigrator(sequelize).up(), onWait);
  return applied.map((m) => m.name);
}

export interface MigrationStatus {
  applied: string[];
  pending: string[];
}

export async function migrationStatus(sequelize: Sequelize): Promise<MigrationStatus> {
  const migrator = createMigrator(sequelize);
  const [applied, pending] = await Promise.all([migrator.executed(), migrator.pending()]);
  return { applied: applied.map((m) => m.name), pending: pending.map((m) => m.name) };
}

const USAGE = 'Usage: npm run migrate [-- up | status]   (production: node dist/db/migrate.js [up | status])';

/** `npm run migrate [-- up]` applies what is pending; `-- status` lists applied and pending migrations and changes nothing. */
async function main(args: string[]): Promise<void> {
  const command = args[0] ?? 'up';
  if (args.length > 1 || (command !== 'up' && command !== 'status')) {
    console.error(USAGE);
    process.exitCode = 2;
    return;
  }
  const config = loadConfig();
  const sequelize = new Sequelize(requireDatabaseUrl(config), { dialect: 'postgres', logging: false });
  try {
    if (command === 'status') {
      const { applied, pending } = await migrationStatus(sequelize);
      console.log([`applied (${applied.length}):`, ...applied.map((n) => `  ${n}`), `pending (${pending.length}):`, ...pending.map((n) => `  ${n}`)].join('\n'));
    } else {
      const names = await migrateToLatest(sequelize, () => console.log('another migration run holds the lock; waiting for it to finish'));
      console.log(names.length ? `applied: ${names.join(', ')}` : 'database is up to date');
    }
  } finally {
    await sequelize.close();
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    console.error(err instanceof ConfigError ? err.message : err);
    process.exitCode = 1;
  });
}
