import { z } from 'zod';
import { DUNNING_FINAL_ACTIONS } from '../../../domain/billing';

export { UpdateBillingSettingsBody } from '../../../domain/billing';

export const BillingSettings = z
  .object({
    accountId: z.string(),
    taxRateBps: z.int().meta({ description: 'Tax on invoices, in basis points of the subtotal (0 to 10000)' }),
    dunningFinalAction: z.enum(DUNNING_FINAL_ACTIONS),
  })
  .meta({ id: 'BillingSettings' });
