import type { Environment } from './models/common';

/** A workspace and one of its environments: every tenant row belongs to exactly one. */
export type Tenant = {
  accountId: string;
  environment: Environment;
};

/**
 * The one way to scope a query to a tenant: `where: { id, ...tenantWhere(auth) }`. It copies only the two
 * tenant columns, so a caller object with more fields (an AuthContext) never leaks other keys into a filter.
 */
export function tenantWhere(tenant: Tenant): Tenant {
  return { accountId: tenant.accountId, environment: tenant.environment };
}
