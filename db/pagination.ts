import type { Attributes, Model, ModelStatic, Sequelize } from 'sequelize';
import type { IdPrefix } from '../lib/ids';
import { selectColumns } from './columns';
import { decodeCursor, toListPage, type ListPage } from './cursor';
import { plainQuery } from './plain-query';
import { tenantWhere, type Tenant } from './tenancy';

type Scalar = string | number | boolean;

export interface PageRequest {
  limit: number;
  cursor?: string;
}

function column(model: ModelStatic<Model>, attribute: string): string {
  const field = model.getAttributes()[attribute]?.field;
  if (!field) throw new Error(`${model.name} has no attribute ${attribute}`);
  return field;
}

/**
 * One list page of a tenant's rows, newest first, keyset-paginated on the ULID primary key: rows inserted
 * while a client pages have larger ids and so can neither shift nor repeat what it has already seen. `where`
 * adds equality filters (a parent id, a status) to the tenant scope. The statement is a plain query because
 * every list request runs one.
 */
export async function listPage<M extends Model & { id: string }, T>(
  sequelize: Sequelize,
  model: ModelStatic<M>,
  options: {
    tenant: Tenant;
    where?: Partial<Record<keyof Attributes<M> & string, Scalar>>;
    page: PageRequest;
    idPrefix: IdPrefix;
    toDto: (row: Attributes<M>) => T;
  },
): Promise<ListPage<T>> {
  const values: unknown[] = [];
  const bind = (value: unknown) => `$${values.push(value)}`;
  const filters = { ...tenantWhere(options.tenant), ...options.where } as Record<string, Scalar>;
  const conditions = Object.entries(filters).map(([attribute, value]) => `${column(model, attribute)} = ${bind(value)}`);
  const afterId = decodeCursor(options.page.cursor, options.idPrefix);
  if (afterId) conditions.push(`id < ${bind(afterId)}`);
  const limit = bind(options.page.limit + 1);
  const rows = await plainQuery<Attributes<M> & { id: string }>(
    sequelize,
    `SELECT ${selectColumns(model)} FROM ${model.getTableName() as string} WHERE ${conditions.join(' AND ')} ORDER BY id DESC LIMIT ${limit}`,
    values,
  );
  return toListPage(rows, options.page.limit, options.toDto);
}
