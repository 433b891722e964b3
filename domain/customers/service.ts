import { createHash } from 'node:crypto';
import { UniqueConstraintError, type Transaction } from 'sequelize';
import { Customer, TestClock } from '../../db/models';
import { emit } from '../../db/outbox';
import { listPageByCreation, type PageRequest } from '../../db/pagination';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import { AppError, notFound, validationError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { createPaymentProviders, ProviderError } from '../../lib/payment-provider';
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

async function checkTestClock(tx: Transaction, tenant: Tenant, testClock: string | undefined): Promise<void> {
  if (testClock === undefined) return;
  if (tenant.environment !== 'test') throw validationError('testClock: test clocks exist only in the test environment', [{ field: 'testClock', message: 'test environment only' }]);
  const clock = await TestClock.findOne({ where: { id: testClock, ...tenant, deletedAt: null }, transaction: tx });
  if (!clock) throw validationError(`testClock: no test clock ${testClock} in this workspace`, [{ field: 'testClock', message: 'no such test clock' }]);
}

/** The provider's idempotency key of a customer created under the merchant's `Idempotency-Key`. */
function providerCustomerKey(tenant: Tenant, idempotencyKey: string): string {
  return `cus_${createHash('sha256').update(`${tenant.accountId}:${tenant.environment}:customers:${idempotencyKey}`).digest('hex').slice(0, 32)}`;
}

/**
 * Customers. Local mode (no payment module): `cust_` ids, the e-mail required and unique, no events. Provider mode
 * (the payment module on, docs/decisions/payment-module.md): `cus_` ids, the customer created at the provider
 * first (our id as its reference and idempotency key), the e-mail optional and not unique, and `customer.created`
 * emitted once the provider has answered with its customer, in the transaction that writes ours.
 */
export function createCustomerService({ sequelize, config }: Pick<ServiceDeps, 'sequelize' | 'config'>) {
  const providers = createPaymentProviders(config);

  return {
    /** `idempotencyKey`: the request's, from which the provider's is derived, so a retry gets the provider's customer of the first attempt. */
    async create(auth: AuthContext, input: CreateCustomerBody, idempotencyKey?: string): Promise<CustomerDto> {
      const tenant = tenantWhere(auth);
      const providerMode = auth.account.paymentEnabled;
      if (!providerMode && input.email === undefined) throw validationError('email: required (the payment module is off)', [{ field: 'email', message: 'required in local mode' }]);
      try {
        return await sequelize.transaction(async (tx) => {
          await checkTestClock(tx, tenant, input.testClock);
          await enforcePlanCap(tx, auth, 'customers');
          const fields = { ...tenant, email: input.email ?? null, name: input.name ?? null, metadata: input.metadata ?? {}, testClockId: input.testClock ?? null };
          if (!providerMode) return toCustomerDto(await Customer.create({ id: newId('cust'), ...fields }, { transaction: tx }));
          // Made at the provider while the cap is held: a refusal there writes nothing here. Were our commit to
          // fail after it, the retry under the same Idempotency-Key asks again under the same provider key and is
          // answered that customer, whose reference (the first attempt's id, never handed out) becomes ours.
          // Without a key, the provider keeps a customer nobody refers to, named by an id we never hand out.
          let providerCustomer;
          try {
            providerCustomer = await providers.forEnvironment(tenant.environment).createCustomer({
              referenceId: newId('cus'),
              email: fields.email,
              name: fields.name,
              metadata: fields.metadata,
              ...(idempotencyKey ? { idempotencyKey: providerCustomerKey(tenant, idempotencyKey) } : {}),
            });
          } catch (err) {
            if (err instanceof ProviderError) throw new AppError('PARTNER_UNAVAILABLE', `The payment provider did not create the customer: ${err.message}`);
            throw err;
          }
          if (!providerCustomer.referenceId.startsWith('cus_')) throw new Error(`the provider answered a customer of reference ${providerCustomer.referenceId}, not one of ours`);
          const row = await Customer.create({ id: providerCustomer.referenceId, ...fields, providerCustomerId: providerCustomer.id }, { transaction: tx });
          const dto = toCustomerDto(row);
          await emit(tx, tenant, 'customer.created', dto);
          return dto;
        });
      } catch (err) {
        return duplicateEmail(err, input.email);
      }
    },

    /** Newest first by creation time: `cust_` and `cus_` ids do not sort by time together. */
    list(auth: AuthContext, query: CustomerListQuery) {
      return listPageByCreation(sequelize, Customer, {
        tenant: auth,
        where: query.email === undefined ? {} : { email: query.email },
        page: query,
        idPrefixes: ['cust', 'cus'],
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
          if (row.providerCustomerId && (row.changed('email') || row.changed('name') || row.changed('metadata'))) {
            // Under the row lock and before commit, as at creation: a provider that does not take it writes nothing.
            try {
              await providers.forEnvironment(row.environment).updateCustomer(row.providerCustomerId, { email: row.email, name: row.name, metadata: row.metadata });
            } catch (err) {
              if (err instanceof ProviderError) throw new AppError('PARTNER_UNAVAILABLE', `The payment provider did not update the customer: ${err.message}`);
              throw err;
            }
          }
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
