import { Sequelize } from 'sequelize';
import { SequelizeStorage, Umzug } from 'umzug';
import { loadConfig, requireDatabaseUrl } from '../lib/config';
import { migrations } from './migrations';

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

export async function migrateToLatest(sequelize: Sequelize): Promise<string[]> {
  const applied = await createMigrator(sequelize).up();
  return applied.map((m) => m.name);
}

if (require.main === module) {
  const config = loadConfig();
  const sequelize = new Sequelize(requireDatabaseUrl(config), { dialect: 'postgres', logging: false });
  migrateToLatest(sequelize)
    .then((names) => {
      console.log(names.length ? `applied: ${names.join(', ')}` : 'database is up to date');
      return sequelize.close();
    })
    .catch((err: unknown) => {
      console.error(err);
      process.exitCode = 1;
      return sequelize.close();
    });
}
