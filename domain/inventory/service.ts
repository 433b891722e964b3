import { decodeCursor, toListPage } from '../../db/cursor';
import { readLowStockPage, readMovementPage, readStockRows } from '../../db/inventory';
import { Variant, Warehouse } from '../../db/models';
import type { PageRequest } from '../../db/pagination';
import { plainTransaction } from '../../db/plain-query';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import { notFound } from '../../lib/errors';
import { stockActor, type AuthContext } from '../auth-context';
import type { ServiceDeps } from '../service-deps';
import { toLowStockDto, toMovementDto, toStockRowDto, type MovementDto } from './dto';
import type { AdjustStockBody } from './inputs';
import { moveStockRow } from './stock';
import { warehouseNotFound } from './warehouses';

/** The filters of GET /v1/inventory/movements. */
export interface MovementListQuery extends PageRequest {
  variantId?: string;
  warehouseId?: string;
}

/** Stock reads and the merchant's adjustments (module-gated by their routes; stock changes emit no events, document 1). */
export function createStockService({ sequelize }: Pick<ServiceDeps, 'sequelize'>) {
  /** A variant of the tenant, archived ones included (their stock and history stay readable). */
  async function assertVariant(tenant: Tenant, id: string): Promise<void> {
    if ((await Variant.count({ where: { id, ...tenant } })) === 0) throw notFound('Variant');
  }

  return {
    /** One row per active warehouse, the default first; zeros where the variant was never stocked. */
    async stock(auth: AuthContext, variantId: string) {
      const tenant = tenantWhere(auth);
      await assertVariant(tenant, variantId);
      return (await readStockRows(sequelize, tenant, variantId)).map(toStockRowDto);
    },

    /**
     * One movement, in one transaction with the stock row it changes; answered with that movement. A plain
     * transaction (db/plain-query.ts): the adjustments of a variant queue on its row lock, so what each spends
     * around its statements bounds them all (docs/benchmark-method.md); the answer is built after the COMMIT.
     */
    async adjust(auth: AuthContext, input: AdjustStockBody): Promise<MovementDto> {
      const row = await plainTransaction(sequelize, (query) =>
        moveStockRow(query, tenantWhere(auth), {
          variantId: input.variantId,
          warehouseId: input.warehouseId,
          kind: 'adjust',
          quantity: input.delta,
          reason: input.reason,
          reference: input.reference,
          note: input.note,
          actor: stockActor(auth),
        }),
      );
      return toMovementDto(row);
    },

    /** Oldest first, in the order the changes happened; of one variant (and warehouse) or of all. */
    async movements(auth: AuthContext, query: MovementListQuery) {
      const tenant = tenantWhere(auth);
      if (query.variantId !== undefined) await assertVariant(tenant, query.variantId);
      if (query.warehouseId !== undefined && (await Warehouse.count({ where: { id: query.warehouseId, ...tenant } })) === 0) throw warehouseNotFound();
      const rows = await readMovementPage(
        sequelize,
        tenant,
        { variantId: query.variantId, warehouseId: query.warehouseId, afterId: decodeCursor(query.cursor, 'mvt') },
        query.limit + 1,
      );
      return toListPage(rows, query.limit, toMovementDto);
    },

    /** Variants at or below their threshold, stock summed over the active warehouses; newest variant first. */
    async lowStock(auth: AuthContext, page: PageRequest) {
      const rows = await readLowStockPage(sequelize, tenantWhere(auth), decodeCursor(page.cursor, 'var'), page.limit + 1);
      return toListPage(rows, page.limit, toLowStockDto);
    },
  };
}

export type StockService = ReturnType<typeof createStockService>;
