import { z } from 'zod';
import { PortfolioItem } from '../../db/models';
import { isoTimestamp } from '../../lib/text';
import * as f from './fields';
import type { CredibilityResource } from './resource';

export const portfolio: CredibilityResource = {
  name: 'Portfolio item',
  path: '/v1/portfolio',
  tag: 'Portfolio',
  schemaName: 'PortfolioItem',
  idPrefix: 'pfi',
  keys: { single: 'item', list: 'items' },
  model: PortfolioItem,
  linksProduct: true,
  fields: {
    title: f.requiredText(140),
    description: f.longText(5000).meta({ description: 'Empty string when unset, never null' }),
    images: z.array(f.imageUrl).max(8, 'must hold at most 8 images'),
    productId: f.productId,
    externalUrl: f.clearable(f.httpsUrl),
    clientName: f.optionalText(140),
    completedAt: f.isoDate.nullable(),
    sortOrder: f.sortOrder,
    published: f.published,
  },
  required: ['title'],
  output: {
    title: z.string(),
    description: z.string(),
    images: z.array(z.string()),
    productId: z.string().nullable(),
    externalUrl: z.string().nullable(),
    clientName: z.string().nullable(),
    completedAt: isoTimestamp.nullable(),
    sortOrder: z.number().int(),
    published: z.boolean(),
  },
};
