import type { Transaction } from 'sequelize';
import { lockWarehouseDefaults } from '../../db/inventory';
import { Warehouse } from '../../db/models';
import { listPage, type PageRequest } from '../../db/pagination';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import { AppError, invalidState } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { AuthContext } from '../auth-context';
import type { ServiceDeps } from '../service-deps';
import { toWarehouseDto, type WarehouseDto } from './dto';
import type { CreateWarehouseBody, UpdateWarehouseBody } from './inputs';

/** Document 1's code for a warehouse that is missing or another workspace's (not RESOURCE_NOT_FOUND). */
export const warehouseNotFound = () => new AppError('NOT_FOUND', 'Warehouse not found');

/**
 * Warehouses (module-gated by their routes). One default per workspace and environment while any warehouse is
 * active; every write that can move it holds one lock per tenant, so two of them never both see "no default" or
 * both demote (the partial unique index backs that up).
 */
export function createWarehouseService({ sequelize }: Pick<ServiceDeps, 'sequelize'>) {
  const lockDefaults = (tx: Transaction, tenant: Tenant) => lockWarehouseDefaults(tx, tenant, 'exclusive');

  async function demoteDefault(tx: Transaction, tenant: Tenant): Promise<void> {
    await Warehouse.update({ isDefault: false }, { where: { ...tenant, isDefault: true }, transaction: tx });
  }

  async function lockedWarehouse(tx: Transaction, tenant: Tenant, id: string): Promise<Warehouse> {
    // NO KEY UPDATE: waits for adjustments holding the row's share lock, not for inserts that reference it.
    const warehouse = await Warehouse.findOne({ where: { id, ...tenant, archived: false }, lock: tx.LOCK.NO_KEY_UPDATE, transaction: tx });
    if (!warehouse) throw warehouseNotFound();
    return warehouse;
  }

  return {
    /** The first warehouse is the default whatever is sent; a later one with `isDefault: true` takes it over. */
    async create(auth: AuthContext, input: CreateWarehouseBody): Promise<WarehouseDto> {
      const tenant = tenantWhere(auth);
      return sequelize.transaction(async (tx) => {
        await lockDefaults(tx, tenant);
        const hasDefault = (await Warehouse.count({ where: { ...tenant, isDefault: true }, transaction: tx })) > 0;
        const isDefault = !hasDefault || input.isDefault === true;
        if (isDefault && hasDefault) await demoteDefault(tx, tenant);
        const row = await Warehouse.create({ ...input, id: newId('wh'), ...tenant, isDefault }, { transaction: tx });
        return toWarehouseDto(row.get());
      });
    },

    /** Active warehouses, newest first. */
    list(auth: AuthContext, page: PageRequest) {
      return listPage(sequelize, Warehouse, { tenant: auth, where: { archived: false }, page, idPrefix: 'wh', toDto: toWarehouseDto });
    },

    /** Archived warehouses are hidden from every read, like the list. */
    async retrieve(auth: AuthContext, id: string): Promise<WarehouseDto> {
      const row = await Warehouse.findOne({ where: { id, ...tenantWhere(auth), archived: false } });
      if (!row) throw warehouseNotFound();
      return toWarehouseDto(row.get());
    },

    /** `isDefault: true` moves the default here; `false` on the default is refused (there must be one). */
    async update(auth: AuthContext, id: string, input: UpdateWarehouseBody): Promise<WarehouseDto> {
      const tenant = tenantWhere(auth);
      return sequelize.transaction(async (tx) => {
        await lockDefaults(tx, tenant);
        const warehouse = await lockedWarehouse(tx, tenant, id);
        const { isDefault, ...fields } = input;
        if (isDefault === false && warehouse.isDefault) {
          throw invalidState('This is the default warehouse: make another warehouse the default instead');
        }
        if (isDefault === true && !warehouse.isDefault) {
          await demoteDefault(tx, tenant);
          warehouse.isDefault = true;
        }
        warehouse.set(fields);
        await warehouse.save({ transaction: tx });
        return toWarehouseDto(warehouse.get());
      });
    },

    /**
     * Soft archive: hidden from reads, its stock rows and movements kept, no new adjustments or reservations. The
     * default can be archived only as the last active warehouse (the next one created becomes the default).
     */
    async archive(auth: AuthContext, id: string): Promise<WarehouseDto> {
      const tenant = tenantWhere(auth);
      return sequelize.transaction(async (tx) => {
        await lockDefaults(tx, tenant);
        const warehouse = await lockedWarehouse(tx, tenant, id);
        if (warehouse.isDefault) {
          const others = await Warehouse.count({ where: { ...tenant, archived: false }, transaction: tx });
          if (others > 1) throw invalidState('This is the default warehouse: make another warehouse the default before archiving it');
        }
        await warehouse.update({ archived: true, isDefault: false }, { transaction: tx });
        return toWarehouseDto(warehouse.get());
      });
    },
  };
}

export type WarehouseService = ReturnType<typeof createWarehouseService>;
