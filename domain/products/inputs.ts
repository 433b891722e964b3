import { z } from 'zod';
import { patchBody } from '../../lib/patch-body';
import { CURRENCIES, PRODUCT_TYPES } from '../../db/models/product';
import { multiLine, singleLine, stringMap } from '../../lib/text';

/**
 * What a product write may carry: the bounds of document 1 and the limits the spec leaves open. The API
 * validates request bodies with these schemas; the rules below use the limits too.
 */

/**
 * Product metadata limits: at most this many keys, each value at most this many characters. Shared by the API
 * schema and AI generation, so what generation stores survives a PATCH round trip unchanged.
 */
export const METADATA_MAX_KEYS = 50;
export const METADATA_VALUE_MAX = 500;

/** Document 1, Limits: at most 500000000 bytes per file, uploaded or registered. */
export const MAX_FILE_SIZE = 500_000_000;

// Limits the spec leaves open (docs/decisions/catalogue.md).
const MAX_URL_LENGTH = 2048;
const MAX_COVER_IMAGES = 20;
const MAX_TAGS = 50;
const MAX_INT4 = 2_147_483_647;

// z.url would accept (and quietly drop) a line break or tab inside the URL, so the text rule comes first.
const httpUrl = z.url({ protocol: /^https?$/ });
const url = singleLine({ min: 1, max: MAX_URL_LENGTH })
  .refine((v) => httpUrl.safeParse(v).success, 'must be an http(s) URL')
  .meta({ format: 'uri' });
const dimension = z.int().positive().max(MAX_INT4);
const optionalText = (max: number) => singleLine({ min: 1, max }).nullable().optional();

// Values may hold line breaks: AI generation stores its feature bullets newline-joined.
const metadata = stringMap({ keyMax: 40, maxKeys: METADATA_MAX_KEYS, value: multiLine({ max: METADATA_VALUE_MAX }) }).meta({ description: 'String-to-string map; keys 1 to 40 characters, values at most 500; at most 50 keys. Replaced whole on update.' });

const editable = {
  name: singleLine({ min: 1, max: 200 }),
  description: multiLine({ max: 10_000 }).nullable().optional(),
  price: z.int().positive().meta({ description: 'Whole units of the currency (never cents)' }),
  thumbnail: url.nullable().optional(),
  coverImages: z.array(url).max(MAX_COVER_IMAGES).optional(),
  tags: z.array(singleLine({ min: 1, max: 100 })).max(MAX_TAGS).optional(),
  published: z.boolean().optional(),
  licenseEnabled: z.boolean().optional(),
  maxActivations: z.int().min(1).max(1_000_000).optional(),
  gtin: optionalText(50),
  googleProductCategory: optionalText(250),
  brand: optionalText(250),
  feedExcluded: z.boolean().optional(),
  metadata: metadata.optional(),
};

export const CreateProductBody = z
  .object({
    ...editable,
    slug: z
      .string()
      .min(2)
      .max(80)
      .regex(/^[a-z0-9-]+$/, 'only a-z, 0-9 and hyphens')
      .optional()
      .meta({ description: 'Derived from name when omitted; unique per workspace and environment' }),
    currency: z.enum(CURRENCIES),
    type: z.enum(PRODUCT_TYPES),
    aiGenerate: z.boolean().optional().meta({ description: 'Queue AI copy generation (counts against the monthly AI quota)' }),
    weight: dimension.nullable().optional().meta({ description: 'Grams; required when type is physical' }),
    length: dimension.nullable().optional(),
    width: dimension.nullable().optional(),
    height: dimension.nullable().optional(),
    originAreaId: optionalText(200),
    requiresInsurance: z.boolean().optional(),
    madeToOrder: z.boolean().optional(),
    preorderShipsFrom: z.union([z.iso.datetime({ offset: true }), z.iso.date()]).nullable().optional(),
    leadTimeText: multiLine({ max: 500 }).nullable().optional(),
    batchHint: multiLine({ max: 500 }).nullable().optional(),
  })
  .strict()
  .superRefine((body, ctx) => {
    if (body.type === 'physical' && body.weight == null) {
      ctx.addIssue({ code: 'custom', path: ['weight'], message: 'weight (grams) is required for physical products' });
    }
  })
  .meta({ id: 'CreateProductBody' });
export type CreateProductBody = z.infer<typeof CreateProductBody>;

export const UpdateProductBody = patchBody(
  z
    .object({
      ...editable,
      name: editable.name.optional(),
      price: editable.price.optional(),
    })
    .strict(),
  'UpdateProductBody',
);
export type UpdateProductBody = z.infer<typeof UpdateProductBody>;

/** A file's name, uploaded or registered: buyers see it, so it is single-line (no bidi spoofing of the extension). */
export const FileName = singleLine({ min: 1, max: 255 }).meta({ description: 'Shown to buyers: no control or bidirectional formatting characters' });

export const RegisterFileBody = z
  .object({
    fileName: FileName,
    fileSize: z.int().positive().meta({ description: `Bytes; over ${MAX_FILE_SIZE} is 400 FILE_TOO_LARGE` }),
    mimeType: singleLine({ min: 1, max: 255 }).nullable().optional(),
  })
  .strict()
  .meta({ id: 'RegisterProductFileBody' });
export type RegisterFileBody = z.infer<typeof RegisterFileBody>;

