import type { Attributes } from 'sequelize';
import type { TestClock } from '../../db/models';

/** The clock exactly as ARCHITECTURE.md fixes it. */
export function toTestClockDto(row: Attributes<TestClock>) {
  return {
    id: row.id,
    accountId: row.accountId,
    name: row.name,
    frozenTime: new Date(row.frozenTime).toISOString(),
    status: row.status,
    createdAt: new Date(row.createdAt).toISOString(),
  };
}

export type TestClockDto = ReturnType<typeof toTestClockDto>;
