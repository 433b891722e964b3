import { z } from 'zod';
import { patchBody } from '../../lib/patch-body';
import { clearable, optionalText, requiredText } from '../credibility';

/**
 * The workspace's storefront settings: what the public landing payload shows (name, description, branding,
 * pixels), the hosts that serve it, and the manual-payment instructions per method (the manual checkout's e-mail,
 * the local-mode hosted checkout page).
 */

const httpUrl = clearable(
  requiredText(2048).refine((value) => {
    try {
      return ['http:', 'https:'].includes(new URL(value).protocol);
    } catch {
      return false;
    }
  }, 'must be an http(s) URL'),
);

/** Pixel and measurement ids are short tokens: letters, digits, dashes and underscores. */
const pixelId = clearable(z.string().trim().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, - or _'));

/** A bare hostname (no scheme, port or path), lower-cased; at least two labels. */
const hostname = z
  .string()
  .trim()
  .toLowerCase()
  .max(253)
  .regex(/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, 'must be a hostname such as shop.example.com');

export const MAX_CUSTOM_DOMAINS = 10;

export const UpdateStorefrontSettingsBody = patchBody(
  z
    .object({
      name: requiredText(200),
      description: optionalText(2000),
      brandColor: clearable(z.string().regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour as #rrggbb').meta({ example: '#1f6feb' })),
      brandLogo: httpUrl,
      brandBanner: httpUrl,
      metaPixelId: pixelId,
      googleTagId: pixelId,
      tiktokPixelId: pixelId,
      customDomains: z
        .array(hostname)
        .max(MAX_CUSTOM_DOMAINS)
        .transform((hosts) => [...new Set(hosts)])
        .meta({ description: `Hostnames serving this storefront, replaced whole; unique across all workspaces (at most ${MAX_CUSTOM_DOMAINS})`, example: ['shop.acme.example'] }),
      manualPayment: z
        .object({
          // The bank transfer's (method `va`): these four predate the other methods and keep their names.
          bankName: optionalText(100),
          accountNumber: optionalText(50),
          accountHolder: optionalText(100),
          instructions: optionalText(2000),
          qris: z
            .object({ imageUrl: httpUrl.meta({ description: 'The merchant’s static QRIS code, an http(s) image' }), instructions: optionalText(2000) })
            .partial()
            .strict(),
          ewallet: z.object({ instructions: optionalText(2000) }).partial().strict(),
          intlWallet: z.object({ instructions: optionalText(2000) }).partial().strict(),
        })
        .partial()
        .strict()
        .meta({
          description:
            'Local-mode payment instructions per method, each field replaced when sent (null or blank clears it). A method is offered on the hosted page in local mode only once it has instructions; card never is (no payment provider, no card charge).',
        }),
    })
    .partial()
    .strict(),
  'UpdateStorefrontSettingsBody',
);
export type UpdateStorefrontSettingsBody = z.infer<typeof UpdateStorefrontSettingsBody>;
