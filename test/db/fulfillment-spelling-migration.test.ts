import { Client } from 'pg';
import { QueryTypes, Sequelize } from 'sequelize';
import { createMigrator } from '../../db/migrate';

/**
 * Migration 0029 renames the two step ledgers to the spec's spelling (docs/decisions/vocabulary.md): the rows a
 * running fulfillment already wrote stay, under the new names with their keys, and its down migration goes back.
 */
const BEFORE = '0028-dashboard-people';
const RENAMED = '0029-fulfillment-spelling';
const LEDGERS = {
  'checkout_fulfilment_steps': 'checkout_fulfillment_steps',
  'manual_order_fulfilment_steps': 'manual_order_fulfillment_steps',
};

let sequelize: Sequelize;

beforeAll(async () => {
  const name = `spelling_${process.pid}_${Date.now()}`;
  const admin = new Client({ connectionString: process.env.DATABASE_URL! });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const target = new URL(process.env.DATABASE_URL!);
  target.pathname = `/${name}`;
  sequelize = new Sequelize(target.toString(), { dialect: 'postgres', logging: false });
});
afterAll(() => sequelize.close());

/** The tables of this database among the old and new ledger names, each with its constraints' names. */
async function ledgers(): Promise<Record<string, string[]>> {
  const rows = await sequelize.query<{ relname: string; conname: string }>(
    `SELECT c.relname, k.conname FROM pg_class c JOIN pg_constraint k ON k.conrelid = c.oid WHERE c.relname IN (:names) ORDER BY 1, 2`,
    { replacements: { names: [...Object.keys(LEDGERS), ...Object.values(LEDGERS)] }, type: QueryTypes.SELECT },
  );
  const out: Record<string, string[]> = {};
  for (const row of rows) (out[row.relname] ??= []).push(row.conname);
  return out;
}

it('renames both ledgers, their primary and foreign keys, keeps their rows, and its down migration renames them back', async () => {
  const migrator = createMigrator(sequelize);
  await migrator.up({ to: BEFORE });
  // Rows as a fulfillment in flight left them (foreign keys aside: their sessions and orders are not the point here).
  await sequelize.transaction(async (transaction) => {
    await sequelize.query('SET LOCAL session_replication_role = replica', { transaction });
    await sequelize.query(`INSERT INTO checkout_fulfilment_steps (checkout_session_id, step) VALUES ('cs_1', 'balance')`, { transaction });
    await sequelize.query(`INSERT INTO manual_order_fulfilment_steps (manual_order_id, step) VALUES ('mord_1', 'email:receipt')`, { transaction });
  });
  const old = {
    'checkout_fulfilment_steps': ['checkout_fulfilment_steps_checkout_session_id_fkey', 'checkout_fulfilment_steps_pkey'],
    'manual_order_fulfilment_steps': ['manual_order_fulfilment_steps_manual_order_id_fkey', 'manual_order_fulfilment_steps_pkey'],
  };
  expect(await ledgers()).toEqual(old);

  await migrator.up({ to: RENAMED });
  expect(await ledgers()).toEqual({
    checkout_fulfillment_steps: ['checkout_fulfillment_steps_checkout_session_id_fkey', 'checkout_fulfillment_steps_pkey'],
    manual_order_fulfillment_steps: ['manual_order_fulfillment_steps_manual_order_id_fkey', 'manual_order_fulfillment_steps_pkey'],
  });
  expect(await sequelize.query('SELECT checkout_session_id, step FROM checkout_fulfillment_steps', { type: QueryTypes.SELECT })).toEqual([{ checkout_session_id: 'cs_1', step: 'balance' }]);
  expect(await sequelize.query('SELECT manual_order_id, step FROM manual_order_fulfillment_steps', { type: QueryTypes.SELECT })).toEqual([{ manual_order_id: 'mord_1', step: 'email:receipt' }]);

  await migrator.down({ to: RENAMED });
  expect(await ledgers()).toEqual(old);
  expect(await sequelize.query('SELECT step FROM checkout_fulfilment_steps', { type: QueryTypes.SELECT })).toEqual([{ step: 'balance' }]);
});
