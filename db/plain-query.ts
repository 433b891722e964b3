import { createHash } from 'node:crypto';
import type { Client } from 'pg';
import type { Sequelize, Transaction } from 'sequelize';

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
 * request (README, Benchmark). Statement texts must come from code, never from input: each distinct text
 * stays prepared on every connection.
 */
export async function plainQuery<T>(sequelize: Sequelize, text: string, values: unknown[]): Promise<T[]> {
  const connection = (await sequelize.connectionManager.getConnection({ type: 'read' })) as unknown as Client;
  try {
    return (await connection.query<T & object>({ name: statementName(text), text, values })).rows;
  } finally {
    sequelize.connectionManager.releaseConnection(connection as never);
  }
}

/**
 * plainQuery inside a transaction, on the connection Sequelize holds for it from its start to its end (set at
 * runtime, missing from Sequelize's typings): for the statements of the busiest writes (checkout create).
 */
export async function plainQueryIn<T>(tx: Transaction, text: string, values: unknown[]): Promise<T[]> {
  const connection = (tx as Transaction & { connection?: Client }).connection;
  if (!connection) throw new Error('plainQueryIn: the transaction holds no connection');
  return (await connection.query<T & object>({ name: statementName(text), text, values })).rows;
}
