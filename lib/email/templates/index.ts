import type { EmailKind } from '../kinds';
import { apiKeyRotated } from './api-key-rotated';
import { checkoutReceipt } from './checkout-receipt';
import { manualOrderInstructions } from './manual-order-instructions';
import { paymentConfirmed } from './payment-confirmed';
import { shippingNotification } from './shipping-notification';
import { subscriptionPaymentFailed } from './subscription-payment-failed';
import type { EmailTemplate } from './template';

export const TEMPLATES: Record<EmailKind, EmailTemplate> = {
  api_key_rotated: apiKeyRotated,
  checkout_receipt: checkoutReceipt,
  manual_order_instructions: manualOrderInstructions,
  payment_confirmed: paymentConfirmed,
  shipping_notification: shippingNotification,
  subscription_payment_failed: subscriptionPaymentFailed,
};

export { HTML_LAYOUT, TEXT_LAYOUT } from './layout';
export type { EmailTemplate } from './template';
