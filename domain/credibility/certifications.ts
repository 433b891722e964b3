import { z } from 'zod';
import { Certification } from '../../db/models';
import { isoTimestamp } from '../../lib/text';
import * as f from './fields';
import type { CredibilityResource } from './resource';

export const certifications: CredibilityResource = {
  name: 'Certification',
  path: '/v1/certifications',
  tag: 'Certifications',
  schemaName: 'Certification',
  idPrefix: 'crt',
  keys: { single: 'certification', list: 'certifications' },
  model: Certification,
  linksProduct: false,
  fields: {
    name: f.requiredText(140),
    issuer: f.requiredText(140),
    issuedAt: f.isoDate.nullable(),
    credentialUrl: f.httpsUrl.nullable(),
    imageUrl: f.imageUrl.nullable(),
    sortOrder: f.sortOrder,
    published: f.published,
  },
  required: ['name', 'issuer'],
  output: {
    name: z.string(),
    issuer: z.string(),
    issuedAt: isoTimestamp.nullable(),
    credentialUrl: z.string().nullable(),
    imageUrl: z.string().nullable(),
    sortOrder: z.number().int(),
    published: z.boolean(),
  },
};
