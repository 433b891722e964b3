import { Op, type Attributes, type Model, type ModelStatic, type Transaction, type WhereOptions } from 'sequelize';

export interface Page<M> {
  rows: M[];
  lastId: string | null;
}

/**
 * Keyset page, newest first, on the ULID primary key: rows inserted while a client pages have larger ids
 * and so can neither shift nor repeat what it has already seen.
 */
export async function findPage<M extends Model & { id: string }>(
  model: ModelStatic<M>,
  options: { where: WhereOptions; limit: number; afterId?: string; transaction?: Transaction },
): Promise<Page<Attributes<M>>> {
  const where = options.afterId ? { [Op.and]: [options.where, { id: { [Op.lt]: options.afterId } }] } : options.where;
  const rows = (await model.findAll({
    where,
    order: [['id', 'DESC']],
    limit: options.limit + 1,
    transaction: options.transaction,
    // Plain rows: a list only serialises them, and hydrating model instances costs more than the query.
    raw: true,
  })) as Attributes<M>[];
  const hasMore = rows.length > options.limit;
  const pageRows = hasMore ? rows.slice(0, options.limit) : rows;
  return { rows: pageRows, lastId: hasMore ? ((pageRows[pageRows.length - 1] as { id?: string } | undefined)?.id ?? null) : null };
}
