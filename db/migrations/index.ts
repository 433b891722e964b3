import type { QueryInterface } from 'sequelize';
import * as foundation from './0001-foundation';
import * as catalogue from './0002-catalogue';
import * as credibility from './0003-credibility';
import * as webhooks from './0004-webhooks';
import * as aiRunsProductIndex from './0005-ai-runs-product-index';
import * as discounts from './0006-discounts';
import * as apiKeyChangeNotify from './0007-api-key-change-notify';
import * as workflowStarts from './0008-workflow-starts';
import * as deliveryAttemptKey from './0009-delivery-attempt-key';
import * as storefrontSettings from './0010-storefront-settings';
import * as referralsTracking from './0011-referrals-tracking';
import * as blogPosts from './0012-blog-posts';
import * as emailLog from './0013-email-log';
import * as licences from './0014-licences';
import * as checkout from './0015-checkout';
import * as manualOrders from './0016-manual-orders';
import * as inventory from './0017-inventory';
import * as payouts from './0018-payouts';
import * as billing from './0019-billing';
import * as subscriptions from './0020-subscriptions';
import * as shipping from './0021-shipping';
import * as reservations from './0022-reservations';
import * as paymentProvider from './0023-payment-provider';
import * as paymentProviderBilling from './0024-payment-provider-billing';
import * as invoicePendingCharge from './0025-invoice-pending-charge';
import * as customerNameOptional from './0026-customer-name-optional';
import * as manualPaymentMethods from './0027-manual-payment-methods';
import * as dashboardPeople from './0028-dashboard-people';
import * as fulfillmentSpelling from './0029-fulfillment-spelling';
import * as apiKeyRotation from './0030-api-key-rotation';
import * as traceContext from './0031-trace-context';
import * as settlementDues from './0032-settlement-dues';

export interface Migration {
  name: string;
  up(qi: QueryInterface): Promise<void>;
  down(qi: QueryInterface): Promise<void>;
}

/** Every migration in the order it runs. Add new ones at the end; never edit one that has shipped. */
export const migrations: Migration[] = [
  { name: '0001-foundation', ...foundation },
  { name: '0002-catalogue', ...catalogue },
  { name: '0003-credibility', ...credibility },
  { name: '0004-webhooks', ...webhooks },
  { name: '0005-ai-runs-product-index', ...aiRunsProductIndex },
  { name: '0006-discounts', ...discounts },
  { name: '0007-api-key-change-notify', ...apiKeyChangeNotify },
  { name: '0008-workflow-starts', ...workflowStarts },
  { name: '0009-delivery-attempt-key', ...deliveryAttemptKey },
  { name: '0010-storefront-settings', ...storefrontSettings },
  { name: '0011-referrals-tracking', ...referralsTracking },
  { name: '0012-blog-posts', ...blogPosts },
  { name: '0013-email-log', ...emailLog },
  { name: '0014-licences', ...licences },
  { name: '0015-checkout', ...checkout },
  { name: '0016-manual-orders', ...manualOrders },
  { name: '0017-inventory', ...inventory },
  { name: '0018-payouts', ...payouts },
  { name: '0019-billing', ...billing },
  { name: '0020-subscriptions', ...subscriptions },
  { name: '0021-shipping', ...shipping },
  { name: '0022-reservations', ...reservations },
  { name: '0023-payment-provider', ...paymentProvider },
  { name: '0024-payment-provider-billing', ...paymentProviderBilling },
  { name: '0025-invoice-pending-charge', ...invoicePendingCharge },
  { name: '0026-customer-name-optional', ...customerNameOptional },
  { name: '0027-manual-payment-methods', ...manualPaymentMethods },
  { name: '0028-dashboard-people', ...dashboardPeople },
  { name: '0029-fulfillment-spelling', ...fulfillmentSpelling },
  { name: '0030-api-key-rotation', ...apiKeyRotation },
  { name: '0031-trace-context', ...traceContext },
  { name: '0032-settlement-dues', ...settlementDues },
];
