import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { QueryTypes, type Sequelize } from 'sequelize';
import { createDatabase } from '../../db/connection';
import { plainQuery, plainTransaction } from '../../db/plain-query';
import { afterCommit, runInRequestTransaction } from '../../db/request-transaction';
import { loadConfig, requireDatabaseUrl } from '../../lib/config';

// The transaction of a request under an Idempotency-Key (docs/decisions/idempotency.md), on a real PostgreSQL.
let sequelize: Sequelize;
// A connection of its own, outside Sequelize (whose implicit transaction a request's unit answers): what is committed.
let observer: Client;

beforeAll(async () => {
  const url = requireDatabaseUrl(loadConfig({ ...process.env, PORT: '0' }));
  sequelize = createDatabase({ url, poolMax: 3 });
  observer = new Client({ connectionString: url });
  await observer.connect();
});
afterAll(async () => {
  await observer.end();
  await sequelize.close();
});

const insert = (key: string) => sequelize.query('INSERT INTO rate_limits (key, points) VALUES (:key, 1)', { replacements: { key } });
async function committed(key: string): Promise<boolean> {
  return (await observer.query('SELECT key FROM rate_limits WHERE key = $1', [key])).rowCount === 1;
}

async function inUnit<R>(work: (unit: { commit(): Promise<void>; rollback(): Promise<void>; runAfterCommit(): Promise<void> }) => Promise<R>): Promise<R> {
  return runInRequestTransaction(await sequelize.transaction(), work);
}

describe('a request transaction', () => {
  it('holds every statement of the request until it commits: bare queries, sequelize.transaction() and plain statements', async () => {
    const [bare, nested, plain, plainTx] = [1, 2, 3, 4].map(() => `request-tx:${randomUUID()}`);
    await inUnit(async (unit) => {
      await insert(bare!);
      await sequelize.transaction(() => insert(nested!));
      await plainQuery(sequelize, 'INSERT INTO rate_limits (key, points) VALUES ($1, 1)', [plain]);
      await plainTransaction(sequelize, (query) => query('INSERT INTO rate_limits (key, points) VALUES ($1, 1)', [plainTx]));
      for (const key of [bare, nested, plain, plainTx]) expect(await committed(key!)).toBe(false);
      await unit.commit();
    });
    for (const key of [bare, nested, plain, plainTx]) expect(await committed(key!)).toBe(true);
  });

  it('keeps the work before a failed sequelize.transaction() (a savepoint), and loses all of it on rollback', async () => {
    const [kept, undone] = [`request-tx:${randomUUID()}`, `request-tx:${randomUUID()}`];
    await inUnit(async (unit) => {
      await insert(kept);
      await expect(
        sequelize.transaction(async () => {
          await insert(undone);
          await insert(kept); // duplicate key: this savepoint alone rolls back
        }),
      ).rejects.toThrow();
      const seen = await sequelize.query('SELECT key FROM rate_limits WHERE key IN (:keys)', { type: QueryTypes.SELECT, replacements: { keys: [kept, undone] } });
      expect(seen).toEqual([{ key: kept }]);
      await unit.rollback();
    });
    expect(await committed(kept)).toBe(false);
  });

  it('runs work deferred with afterCommit only after the commit, and never after a rollback', async () => {
    const ran: string[] = [];
    await inUnit(async (unit) => {
      await afterCommit(async () => void ran.push('committed'));
      expect(ran).toEqual([]);
      await unit.commit();
      await unit.runAfterCommit();
    });
    await inUnit(async (unit) => {
      await afterCommit(async () => void ran.push('rolled back'));
      await unit.rollback();
      await unit.runAfterCommit();
    });
    await afterCommit(async () => void ran.push('outside'));
    expect(ran).toEqual(['committed', 'outside']);
  });

  it('after a rollback, a statement the handler still sends fails instead of committing on its own', async () => {
    const key = `request-tx:${randomUUID()}`;
    await inUnit(async (unit) => {
      await unit.rollback();
      await expect(insert(key)).rejects.toThrow();
      await expect(sequelize.transaction(() => insert(key))).rejects.toThrow();
    });
    expect(await committed(key)).toBe(false);
  });
});

