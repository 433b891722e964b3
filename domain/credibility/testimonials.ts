import { z } from 'zod';
import { Testimonial } from '../../db/models';
import * as f from './fields';
import type { CredibilityResource } from './resource';

export const testimonials: CredibilityResource = {
  name: 'Testimonial',
  path: '/v1/testimonials',
  tag: 'Testimonials',
  schemaName: 'Testimonial',
  idPrefix: 'tst',
  keys: { single: 'testimonial', list: 'testimonials' },
  model: Testimonial,
  linksProduct: true,
  fields: {
    authorName: f.requiredText(140),
    authorRole: f.optionalText(140),
    quote: f.requiredLongText(2000),
    rating: f.rating,
    avatarUrl: f.imageUrl.nullable(),
    productId: f.productId,
    sortOrder: f.sortOrder,
    published: f.published,
  },
  required: ['authorName', 'quote'],
  output: {
    authorName: z.string(),
    authorRole: z.string().nullable(),
    quote: z.string(),
    rating: z.number().int().nullable(),
    avatarUrl: z.string().nullable(),
    productId: z.string().nullable(),
    sortOrder: z.number().int(),
    published: z.boolean(),
  },
};
