import type { Attributes, Model, ModelStatic, Sequelize } from 'sequelize';
import { selectColumns } from './columns';
import { plainQuery } from './plain-query';

export interface Page<M> {
  rows: M[];
  lastId: string | null;
}

type Scalar = string | number | boolean;

function column(model: ModelStatic<Model>, attribute: string): string {
  const field = model.getAttributes()[attribute]?.field;
  if (!field) throw new Error(`${model.name} has no attribute ${attribute}`);
  return field;
}

/**
 * Keyset page, newest first, on the ULID primary key: rows inserted while a client pages have larger ids
 * and so can neither shift nor repeat what it has already seen. `where` is equality on attributes (the
 * tenant columns and a parent id); the statement is a plain query because every list request runs one.
 */
export async function findPage<M extends Model & { id: string }>(
  sequelize: Sequelize,
  model: ModelStatic<M>,
  options: { where: Partial<Record<keyof Attributes<M> & string, Scalar>>; limit: number; afterId?: string },
): Promise<Page<Attributes<M>>> {
  const values: unknown[] = [];
  const bind = (value: unknown) => `$${values.push(value)}`;
  const conditions = Object.entries(options.where).map(([attribute, value]) => `${column(model, attribute)} = ${bind(value)}`);
  if (options.afterId) conditions.push(`id < ${bind(options.afterId)}`);
  const limit = bind(options.limit + 1);
  const rows = await plainQuery<Attributes<M>>(
    sequelize,
    `SELECT ${selectColumns(model)} FROM ${model.getTableName() as string} WHERE ${conditions.join(' AND ')} ORDER BY id DESC LIMIT ${limit}`,
    values,
  );
  const hasMore = rows.length > options.limit;
  const pageRows = hasMore ? rows.slice(0, options.limit) : rows;
  return { rows: pageRows, lastId: hasMore ? ((pageRows[pageRows.length - 1] as { id?: string } | undefined)?.id ?? null) : null };
}
