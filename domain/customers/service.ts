import { UniqueConstraintError } from 'sequelize';
import { Customer, TestClock } from '../../db/models';
import { listPage, type PageRequest } from '../../db/pagination';
import { tenantWhere } from '../../db/tenancy';
import { AppError, notFound, validationError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { AuthContext } from '../auth-context';
import { enforcePlanCap } from '../plan-caps';
import type { ServiceDeps } from '../service-deps';
import { toCustomerDto, type CustomerDto } from './dto';
import type { CreateCustomerBody, UpdateCustomerBody } from './inputs';

export interface CustomerListQuery extends PageRequest {
  /** Exact, case-sensitive. */
  email?: string;
}

const EMAIL_INDEX = 'customers_email';

/** Local mode dedupes on the e-mail: a duplicate is `409 VALIDATION_ERROR` (document 2), also under a race. */
function duplicateEmail(err: unknown, email: string | undefined): never {
  if (err instanceof UniqueConstraintError && (err.parent as { constraint?: string }).constraint === EMAIL_INDEX) {
    throw new AppError('VALIDATION_ERROR', `A customer with the e-mail "${email}" already exists`, [{ field: 'email', message: 'already used by another customer' }], { conflict: true });
  }
  throw err;
}

/** Customers in local mode (`cust_` ids); no events (`customer.created` comes only from a provider). */
export function createCustomerService({ sequelize }: Pick<ServiceDeps, 'sequelize'>) {
  return {
    async create(auth: AuthContext, input: CreateCustomerBody): Promise<CustomerDto> {
      const tenant = tenantWhere(auth);
      try {
        return await sequelize.transaction(async (tx) => {
          if (input.testClock !== undefined) {
            if (tenant.environment !== 'test') throw validationError('testClock: test clocks exist only in the test environment', [{ field: 'testClock', message: 'test environment only' }]);
            const clock = await TestClock.findOne({ where: { id: input.testClock, ...tenant, deletedAt: null }, transaction: tx });
            if (!clock) throw validationError(`testClock: no test clock ${input.testClock} in this workspace`, [{ field: 'testClock', message: 'no such test clock' }]);
          }
          await enforcePlanCap(tx, auth, 'customers');
          const row = await Customer.create(
            { id: newId('cust'), ...tenant, email: input.email, name: input.name, metadata: input.metadata ?? {}, testClockId: input.testClock ?? null },
            { transaction: tx },
          );
          return toCustomerDto(row);
        });
      } catch (err) {
        return duplicateEmail(err, input.email);
      }
    },

    list(auth: AuthContext, query: CustomerListQuery) {
      return listPage(sequelize, Customer, {
        tenant: auth,
        where: query.email === undefined ? {} : { email: query.email },
        page: query,
        idPrefix: 'cust',
        toDto: toCustomerDto,
      });
    },

    async retrieve(auth: AuthContext, id: string): Promise<CustomerDto> {
      const row = await Customer.findOne({ where: { id, ...tenantWhere(auth) } });
      if (!row) throw notFound('Customer');
      return toCustomerDto(row);
    },

    async update(auth: AuthContext, id: string, input: UpdateCustomerBody): Promise<CustomerDto> {
      try {
        return await sequelize.transaction(async (tx) => {
          const row = await Customer.findOne({ where: { id, ...tenantWhere(auth) }, lock: tx.LOCK.UPDATE, transaction: tx });
          if (!row) throw notFound('Customer');
          const { metadata, ...fields } = input;
          row.set({ ...fields, ...(metadata !== undefined ? { metadata: metadata ?? {} } : {}) });
          // A PATCH is a write even when nothing changed: updatedAt moves, as on every other resource.
          row.changed('updatedAt', true);
          await row.save({ transaction: tx });
          return toCustomerDto(row);
        });
      } catch (err) {
        return duplicateEmail(err, input.email);
      }
    },
  };
}

export type CustomerService = ReturnType<typeof createCustomerService>;
