import { z } from 'zod';

export { UpdateStorefrontSettingsBody } from '../../../domain/storefront';

export const StorefrontSettings = z
  .object({
    accountId: z.string(),
    name: z.string(),
    slug: z.string().nullable().meta({ description: 'Fixed at workspace creation' }),
    description: z.string().nullable(),
    brandColor: z.string().nullable(),
    brandLogo: z.string().nullable(),
    brandBanner: z.string().nullable(),
    pixels: z.object({ metaPixelId: z.string().nullable(), googleTagId: z.string().nullable(), tiktokPixelId: z.string().nullable() }),
    customDomains: z.array(z.string()),
    manualPayment: z
      .object({
        bankName: z.string().nullable(),
        accountNumber: z.string().nullable(),
        accountHolder: z.string().nullable(),
        instructions: z.string().nullable(),
        qris: z.object({ imageUrl: z.string().nullable(), instructions: z.string().nullable() }),
        ewallet: z.object({ instructions: z.string().nullable() }),
        intlWallet: z.object({ instructions: z.string().nullable() }),
      })
      .meta({ description: 'Local-mode payment instructions: the bank transfer (`va`, the four top-level fields), QRIS, e-wallet and international wallet' }),
    updatedAt: z.string(),
  })
  .meta({ id: 'StorefrontSettings' });
