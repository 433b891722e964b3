import { QueryTypes, type Sequelize } from 'sequelize';
import type { CredibilityTable } from '../fixtures/credibility';

/** The three credibility resources as the tests drive them: where they live and a minimal valid body. */
export interface CredibilityCase {
  name: string;
  path: string;
  table: CredibilityTable;
  prefix: string;
  single: string;
  list: string;
  minimal: Record<string, unknown>;
  /** The response of a record created from `minimal`, besides id, accountId and the timestamps. */
  defaults: Record<string, unknown>;
  /** A valid PATCH body that changes something. */
  change: Record<string, unknown>;
}

export const PORTFOLIO: CredibilityCase = {
  name: 'portfolio',
  path: '/api/v1/portfolio',
  table: 'portfolio_items',
  prefix: 'pfi',
  single: 'item',
  list: 'items',
  minimal: { title: 'Brand refresh' },
  defaults: {
    title: 'Brand refresh',
    description: '',
    images: [],
    productId: null,
    externalUrl: null,
    clientName: null,
    completedAt: null,
    sortOrder: 0,
    published: true,
  },
  change: { title: 'Renamed' },
};

export const TESTIMONIALS: CredibilityCase = {
  name: 'testimonials',
  path: '/api/v1/testimonials',
  table: 'testimonials',
  prefix: 'tst',
  single: 'testimonial',
  list: 'testimonials',
  minimal: { authorName: 'Ada', quote: 'Lovely work.' },
  defaults: {
    authorName: 'Ada',
    authorRole: null,
    quote: 'Lovely work.',
    rating: null,
    avatarUrl: null,
    productId: null,
    sortOrder: 0,
    published: true,
  },
  change: { quote: 'Even better the second time.' },
};

export const CERTIFICATIONS: CredibilityCase = {
  name: 'certifications',
  path: '/api/v1/certifications',
  table: 'certifications',
  prefix: 'crt',
  single: 'certification',
  list: 'certifications',
  minimal: { name: 'ISO 9001', issuer: 'BSI' },
  defaults: {
    name: 'ISO 9001',
    issuer: 'BSI',
    issuedAt: null,
    credentialUrl: null,
    imageUrl: null,
    sortOrder: 0,
    published: true,
  },
  change: { issuer: 'TÜV' },
};

export const RESOURCES = [PORTFOLIO, TESTIMONIALS, CERTIFICATIONS];

/** How many rows of `table` the workspace holds (both environments). */
export async function countRows(sequelize: Sequelize, table: string, accountId: string): Promise<number> {
  const [row] = await sequelize.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE account_id = :accountId`, {
    type: QueryTypes.SELECT,
    replacements: { accountId },
  });
  return row!.n;
}

/** The stored row exactly as PostgreSQL holds it (timestamps at full precision), to prove it did not change. */
export async function storedRow(sequelize: Sequelize, table: string, id: string): Promise<Record<string, unknown> | undefined> {
  const [row] = await sequelize.query<{ row: Record<string, unknown> }>(`SELECT to_jsonb(t) AS row FROM ${table} t WHERE id = :id`, {
    type: QueryTypes.SELECT,
    replacements: { id },
  });
  return row?.row;
}
