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
 * plainQuery on the connection of a Sequelize transaction, for a transaction on a hot path (the public licence
 * activation): the transaction's lifecycle stays Sequelize's (START, COMMIT, ROLLBACK on a throw), its statements
 * skip the query pipeline. Sequelize keeps the connection it holds for the transaction on the transaction.
 */
export async function plainQueryIn<T>(transaction: Transaction, text: string, values: unknown[]): Promise<T[]> {
  const { connection } = transaction as Transaction & { connection: Client };
  return (await connection.query<T & object>({ name: statementName(text), text, values })).rows;
}
