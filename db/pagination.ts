import type { Attributes, Model, ModelStatic, Sequelize } from 'sequelize';
import type { IdPrefix } from '../lib/ids';
import { selectColumns } from './columns';
import { decodeCreationCursor, decodeCursor, encodeCreationCursor, toListPage, type ListPage } from './cursor';
import { plainQuery } from './plain-query';
import { tenantWhere, type Tenant } from './tenancy';

/** An equality filter; null matches SQL NULL (`IS NULL`). */
type Scalar = string | number | boolean | null;

export interface PageRequest {
  limit: number;
  cursor?: string;
}

function column(model: ModelStatic<Model>, attribute: string): string {
  const field = model.getAttributes()[attribute]?.field;
  if (!field) throw new Error(`${model.name} has no attribute ${attribute}`);
  return field;
}

export interface Statement {
  text: string;
  values: unknown[];
}

type PageOptions<M extends Model> = {
  tenant: Tenant;
  where?: Partial<Record<keyof Attributes<M> & string, Scalar>>;
  page: PageRequest;
  idPrefix: IdPrefix;
};

function filterConditions<M extends Model>(model: ModelStatic<M>, options: Omit<PageOptions<M>, 'idPrefix'>, bind: (value: unknown) => string): string[] {
  const filters = { ...tenantWhere(options.tenant), ...options.where } as Record<string, Scalar>;
  return Object.entries(filters).map(([attribute, value]) => (value === null ? `${column(model, attribute)} IS NULL` : `${column(model, attribute)} = ${bind(value)}`));
}

/** The statement of one list page (see listPage); exported so the bench's ceilings send the very same one. */
export function listPageStatement<M extends Model>(model: ModelStatic<M>, options: PageOptions<M>): Statement {
  const values: unknown[] = [];
  const bind = (value: unknown) => `$${values.push(value)}`;
  const conditions = filterConditions(model, options, bind);
  const afterId = decodeCursor(options.page.cursor, options.idPrefix);
  if (afterId) conditions.push(`id < ${bind(afterId)}`);
  const limit = bind(options.page.limit + 1);
  return {
    text: `SELECT ${selectColumns(model)} FROM ${model.getTableName() as string} WHERE ${conditions.join(' AND ')} ORDER BY id DESC LIMIT ${limit}`,
    values,
  };
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
  options: PageOptions<M> & { toDto: (row: Attributes<M>) => T },
): Promise<ListPage<T>> {
  const { text, values } = listPageStatement(model, options);
  const rows = await plainQuery<Attributes<M> & { id: string }>(sequelize, text, values);
  return toListPage(rows, options.page.limit, options.toDto);
}

type CreationPageOptions<M extends Model> = Omit<PageOptions<M>, 'idPrefix'> & { idPrefixes: readonly IdPrefix[] };

/** The statement of one page ordered by creation (see listPageByCreation). */
export function listPageByCreationStatement<M extends Model>(model: ModelStatic<M>, options: CreationPageOptions<M>): Statement {
  const values: unknown[] = [];
  const bind = (value: unknown) => `$${values.push(value)}`;
  const conditions = filterConditions(model, options, bind);
  const after = decodeCreationCursor(options.page.cursor, options.idPrefixes);
  if (after) conditions.push(`(created_at, id) < (${bind(after.createdAt)}::timestamptz, ${bind(after.id)})`);
  const limit = bind(options.page.limit + 1);
  return {
    text: `SELECT ${selectColumns(model)}, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') || '+00' AS "cursorAt" FROM ${model.getTableName() as string} WHERE ${conditions.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ${limit}`,
    values,
  };
}

/**
 * One list page, newest first, for a table whose ids carry more than one prefix (customers: `cust_` and `cus_`):
 * the prefix, not the time, would decide an order by id, so the page is keyset-paginated on (created_at, id)
 * instead. The cursor carries the last row's `created_at` in UTC to the microsecond (spelled out, whatever the session's
 * DateStyle), so it names exactly that row; ties on the time are broken by the id.
 */
export async function listPageByCreation<M extends Model & { id: string }, T>(
  sequelize: Sequelize,
  model: ModelStatic<M>,
  options: CreationPageOptions<M> & { toDto: (row: Attributes<M>) => T },
): Promise<ListPage<T>> {
  const { text, values } = listPageByCreationStatement(model, options);
  const rows = await plainQuery<Attributes<M> & { id: string; cursorAt: string }>(sequelize, text, values);
  const page = rows.slice(0, options.page.limit);
  const last = page[page.length - 1];
  return {
    data: page.map((row) => options.toDto(row)),
    nextCursor: rows.length > options.page.limit && last ? encodeCreationCursor({ createdAt: last.cursorAt, id: last.id }) : null,
  };
}
