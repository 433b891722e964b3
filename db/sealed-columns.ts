import { QueryTypes, type Sequelize } from 'sequelize';

/** A column holding values sealed by lib/crypto-box, and the columns that name its row. */
export interface SealedColumn {
  table: string;
  key: readonly string[];
  column: string;
}

/** Every column the service seals. A new sealed column belongs here, or key rotation leaves it behind. */
export const SEALED_COLUMNS: readonly SealedColumn[] = [
  { table: 'idempotency_keys', key: ['id'], column: 'response_body' },
  { table: 'webhook_endpoints', key: ['id'], column: 'secret_sealed' },
  { table: 'payout_bank_accounts', key: ['account_id', 'environment'], column: 'bank_account_number_sealed' },
  { table: 'payouts', key: ['id'], column: 'bank_account_number_sealed' },
  { table: 'email_messages', key: ['id'], column: 'body' },
];

export interface ResealOutcome {
  table: string;
  column: string;
  /** Values sealed under another key than the current one when the pass began. */
  found: number;
  rewritten: number;
  /** Rows whose value none of the configured keys opens, by their key columns joined with `/`. */
  unreadable: string[];
}

export interface ResealOptions {
  /** `v2.<current key id>.`: values that start so are already current and are skipped. */
  currentPrefix: string;
  /** The value sealed under the current key; throws when no configured key opens it. */
  reseal: (sealed: string) => string | null;
  batchSize: number;
  onProgress?: (progress: { table: string; column: string; done: number; found: number }) => void;
}

type Row = { value: string } & Record<string, string>;

/**
 * Re-seals one column under the current key, one UPDATE per batch, walking its rows in key order (so a row that
 * cannot be opened is passed, not retried forever). A value changed since it was read is left as the writer left it
 * (the update compares it): the writer sealed it under the current key anyway. Running it again finds only what is left.
 */
export async function resealColumn(sequelize: Sequelize, target: SealedColumn, options: ResealOptions): Promise<ResealOutcome> {
  const { table, key, column } = target;
  const keyList = key.join(', ');
  const stale = `${column} IS NOT NULL AND left(${column}, $prefixLength) <> $prefix`;
  const prefixBind = { prefix: options.currentPrefix, prefixLength: options.currentPrefix.length };
  const [counted] = await sequelize.query<{ count: string }>(`SELECT count(*) AS count FROM ${table} WHERE ${stale}`, {
    bind: prefixBind,
    type: QueryTypes.SELECT,
  });
  const outcome: ResealOutcome = { table, column, found: Number(counted!.count), rewritten: 0, unreadable: [] };
  let cursor: string[] | null = null;
  let done = 0;
  for (;;) {
    const after = cursor ? `AND (${keyList}) > (${key.map((_, i) => `$k${i}`).join(', ')})` : '';
    const rows: Row[] = await sequelize.query<Row>(
      `SELECT ${key.map((k, i) => `${k} AS "k${i}"`).join(', ')}, ${column} AS value FROM ${table}
        WHERE ${stale} ${after} ORDER BY ${keyList} LIMIT ${Math.trunc(options.batchSize)}`,
      { bind: { ...prefixBind, ...Object.fromEntries((cursor ?? []).map((v, i) => [`k${i}`, v])) }, type: QueryTypes.SELECT },
    );
    if (rows.length === 0) return outcome;
    const keysOf = (row: Row) => key.map((_, i) => row[`k${i}`]!);
    cursor = keysOf(rows.at(-1)!);
    const updates: { keys: string[]; old: string; sealed: string }[] = [];
    for (const row of rows) {
      try {
        const sealed = options.reseal(row.value);
        if (sealed !== null) updates.push({ keys: keysOf(row), old: row.value, sealed });
      } catch {
        outcome.unreadable.push(keysOf(row).join('/'));
      }
    }
    if (updates.length > 0) {
      const arrays = Object.fromEntries(key.map((_, i) => [`k${i}`, updates.map((u) => u.keys[i])]));
      const [, affected] = await sequelize.query(
        `UPDATE ${table} AS t SET ${column} = v.sealed
           FROM unnest(${key.map((_, i) => `$k${i}::text[]`).join(', ')}, $old::text[], $sealed::text[]) AS v(${key.map((_, i) => `k${i}`).join(', ')}, old, sealed)
          WHERE ${key.map((k, i) => `t.${k} = v.k${i}`).join(' AND ')} AND t.${column} = v.old`,
        { bind: { ...arrays, old: updates.map((u) => u.old), sealed: updates.map((u) => u.sealed) }, type: QueryTypes.UPDATE },
      );
      outcome.rewritten += affected;
    }
    done += rows.length;
    options.onProgress?.({ table, column, done, found: outcome.found });
  }
}
