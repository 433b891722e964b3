import { randomUUID } from 'node:crypto';
import type { Sequelize } from 'sequelize';
import { createDatabase } from '../../db/connection';
import { plainQuery, plainTransaction } from '../../db/plain-query';
import { loadConfig, requireDatabaseUrl } from '../../lib/config';

// One connection: whatever plainTransaction leaves on it, the next statement meets.
let sequelize: Sequelize;

beforeAll(() => {
  sequelize = createDatabase({ url: requireDatabaseUrl(loadConfig({ ...process.env, PORT: '0' })), poolMax: 1 });
});
afterAll(() => sequelize.close());

/** A row of the shared counter table, which any test may write under a key of its own. */
const insertCounter = 'INSERT INTO rate_limits (key, points) VALUES ($1, 1)';
const counters = async (key: string) => (await plainQuery<{ key: string }>(sequelize, 'SELECT key FROM rate_limits WHERE key = $1', [key])).length;

describe('plainTransaction', () => {
  it("commits the work's statements and answers what the work answers", async () => {
    const key = `plain-tx:${randomUUID()}`;
    const answer = await plainTransaction(sequelize, async (query) => {
      await query(insertCounter, [key]);
      return (await query<{ n: number }>('SELECT count(*)::int AS n FROM rate_limits WHERE key = $1', [key]))[0]?.n;
    });
    expect(answer).toBe(1);
    expect(await counters(key)).toBe(1);
  });

  it('rolls back when the work throws after a write, and the connection goes back out of the transaction', async () => {
    const key = `plain-tx:${randomUUID()}`;
    const failed = plainTransaction(sequelize, async (query) => {
      await query(insertCounter, [key]);
      throw new Error('refused after a write');
    });
    await expect(failed).rejects.toThrow('refused after a write');
    // The same (only) connection: still inside the transaction, this would see the row.
    expect(await counters(key)).toBe(0);
  });

  it('rolls back a transaction a failed statement aborted, so the next statement on the connection runs', async () => {
    const key = `plain-tx:${randomUUID()}`;
    const failed = plainTransaction(sequelize, async (query) => {
      await query(insertCounter, [key]);
      await query(insertCounter, [key]);
    });
    await expect(failed).rejects.toThrow(/duplicate key/);
    expect(await counters(key)).toBe(0);
  });

  it("answers the work's error when the connection is lost, and the pool does not hand the lost connection out again", async () => {
    const failed = plainTransaction(sequelize, async (query) => {
      await query('SELECT pg_terminate_backend(pg_backend_pid())', []);
    });
    await expect(failed).rejects.toThrow(/terminating connection/);
    expect(await plainQuery<{ one: number }>(sequelize, 'SELECT 1 AS one', [])).toEqual([{ one: 1 }]);
  });
});
