import { z } from 'zod';

/** The provider's own callback shapes (Xendit's invoice, disbursement and refund callbacks); read by the adapter. */
export const ProviderCallbackBody = z.record(z.string(), z.unknown()).meta({
  id: 'PaymentProviderCallback',
  description: "A payment provider callback in the provider's own shape (see docs/decisions/payment-module.md)",
});

export const ProviderCallbackAnswer = z
  .object({
    received: z.literal(true),
    eventId: z.string(),
    outcome: z.string().meta({ description: '`applied`, `duplicate` (received before: nothing changed), or why nothing was done (`ignored…`, `already_completed`, `amount_mismatch`, `refunded_late_payment`)' }),
  })
  .meta({ id: 'PaymentProviderCallbackAnswer' });
