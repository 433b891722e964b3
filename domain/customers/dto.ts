import type { Attributes } from 'sequelize';
import type { Customer } from '../../db/models';

export function toCustomerDto(row: Attributes<Customer>) {
  return {
    id: row.id,
    accountId: row.accountId,
    email: row.email,
    name: row.name,
    metadata: row.metadata,
    testClock: row.testClockId,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export type CustomerDto = ReturnType<typeof toCustomerDto>;
