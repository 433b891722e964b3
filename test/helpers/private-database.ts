import { Client } from 'pg';
import { createDatabase } from '../../db/connection';
import { migrateToLatest } from '../../db/migrate';

/**
 * A migrated database of its own on the suite's PostgreSQL, for test files that run an outbox relay or a
 * settlement sweep: a relay fans out every unpublished event in its database, and a sweep settles every due
 * credit, so sharing one would let it take (and deliver elsewhere) the events, or settle the credits, of test
 * files running beside it. Points DATABASE_URL at it until the file ends;
 * call before useTestApi/createTestContext so they connect to it.
 */
export function usePrivateDatabase(label: string): void {
  const sharedUrl = process.env.DATABASE_URL!;
  beforeAll(async () => {
    const name = `${label}_${process.pid}_${Date.now()}`.replace(/[^a-z0-9_]/gi, '_').toLowerCase();
    const admin = new Client({ connectionString: sharedUrl });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${name}`);
    } finally {
      await admin.end();
    }
    const url = new URL(sharedUrl);
    url.pathname = `/${name}`;
    const sequelize = createDatabase({ url: url.toString(), poolMax: 1 });
    try {
      await migrateToLatest(sequelize);
    } finally {
      await sequelize.close();
    }
    process.env.DATABASE_URL = url.toString();
  }, 60_000);
  afterAll(() => {
    process.env.DATABASE_URL = sharedUrl;
  });
}
