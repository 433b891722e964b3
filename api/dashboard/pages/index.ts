import { BILLING_NOTICES, mountBillingPages } from './billing';
import type { PageKit } from './kit';
import { MANUAL_ORDER_NOTICES, mountManualOrderPages } from './manual-orders';
import { mountPayoutPages, PAYOUT_NOTICES } from './payouts';

/** The notices of the pages below, added to router.ts's fixed table. */
export const MONEY_PAGE_NOTICES: Record<string, string> = { ...BILLING_NOTICES, ...PAYOUT_NOTICES, ...MANUAL_ORDER_NOTICES };

/** Customers, subscriptions, invoices, payouts and manual orders, on the signed-in part of the dashboard's router. */
export function mountMoneyPages(kit: PageKit): void {
  mountBillingPages(kit);
  mountPayoutPages(kit);
  mountManualOrderPages(kit);
}
