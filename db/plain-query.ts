import { createHash } from 'node:crypto';
import type { Client } from 'pg';
import type { Sequelize, Transaction } from 'sequelize';
import { requestTransaction } from './request-transaction';

const statementNames = new Map<string, string>();

/** A stable name per statement text, so each pooled connection parses and plans it once. */
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (!name) {
    name = `s_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    statementNames.set(text, name);
  }
  return name;
}

/**
 * One parameterised statement on a connection from Sequelize's own pool, without Sequelize's query pipeline
 * (replacement parsing, hooks, result shaping), as a named prepared statement. For the statements every
 * authenticated request runs (key lookup, list pages), where both costs are a measurable share of the
 * request (docs/benchmarks.md). Statement texts must come from code, never from input: each distinct text
 * stays prepared on every connection. Inside a request's transaction it runs there (request-transaction.ts).
 */
export async function plainQuery<T>(sequelize: Sequelize, text: string, values: unknown[]): Promise<T[]> {
  const ambient = requestTransaction();
  if (ambient) return plainQueryIn<T>(ambient, text, values);
  const connection = (await sequelize.connectionManager.getConnection({ type: 'read' })) as unknown as Client;
  try {
    return (await connection.query<T & object>({ name: statementName(text), text, values })).rows;
  } finally {
    sequelize.connectionManager.releaseConnection(connection as never);
  }
}

/**
 * plainQuery inside a Sequelize transaction, on the connection Sequelize holds for it from its start to its end (set
 * at runtime, missing from Sequelize's typings): for the statements of the busiest writes (checkout create).
 */
export async function plainQueryIn<T>(tx: Transaction, text: string, values: unknown[]): Promise<T[]> {
  const connection = (tx as Transaction & { connection?: Client }).connection;
  if (!connection) throw new Error('plainQueryIn: the transaction holds no connection');
  return (await connection.query<T & object>({ name: statementName(text), text, values })).rows;
}

/** A statement inside plainTransaction, on its connection. */
export type PlainStatement = <T>(text: string, values: unknown[]) => Promise<T[]>;

/**
 * A transaction of plain statements (named prepared, as plainQuery's) on one connection from Sequelize's pool,
 * without Sequelize's transaction machinery, for the transaction of a hot path (the public licence activation):
 * START TRANSACTION, `work`, COMMIT; ROLLBACK when `work` (or the COMMIT) throws, and the work's error is what the
 * caller gets. A connection lost on the way is released all the same: the pool's validation discards it. Inside a
 * request's transaction it is a savepoint of it.
 */
export async function plainTransaction<R>(sequelize: Sequelize, work: (query: PlainStatement) => Promise<R>): Promise<R> {
  const ambient = requestTransaction();
  if (ambient) return plainSavepoint(ambient, work);
  const connection = (await sequelize.connectionManager.getConnection({ type: 'write' })) as unknown as Client;
  try {
    await connection.query('START TRANSACTION');
    const result = await work(async <T>(text: string, values: unknown[]) => (await connection.query<T & object>({ name: statementName(text), text, values })).rows);
    await connection.query('COMMIT');
    return result;
  } catch (err) {
    await connection.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    sequelize.connectionManager.releaseConnection(connection as never);
  }
}

async function plainSavepoint<R>(tx: Transaction, work: (query: PlainStatement) => Promise<R>): Promise<R> {
  const connection = (tx as Transaction & { connection: Client }).connection;
  await connection.query('SAVEPOINT plain_transaction');
  try {
    const result = await work(transactionStatements(tx));
    await connection.query('RELEASE SAVEPOINT plain_transaction');
    return result;
  } catch (err) {
    await connection.query('ROLLBACK TO SAVEPOINT plain_transaction').catch(() => undefined);
    throw err;
  }
}

/**
 * The statements of a Sequelize transaction sent as plainTransaction sends its own (named prepared, without the
 * query pipeline) on the transaction's connection, for the hot statements of work that must share a transaction
 * with model writes (a checkout's stock reservation).
 */
export function transactionStatements(tx: Transaction): PlainStatement {
  const connection = (tx as Transaction & { connection: Client }).connection;
  return async <T>(text: string, values: unknown[]) => (await connection.query<T & object>({ name: statementName(text), text, values })).rows;
}
