import { randomBytes } from 'node:crypto';
import { monotonicFactory } from 'ulid';

/** Every id prefix the service hands out. */
export const ID_PREFIXES = {
  account: 'acc',
  apiKey: 'key',
  request: 'req',
  event: 'evt',
  auditLog: 'alog',
  idempotencyKey: 'idem',
  product: 'prod',
  variant: 'var',
  file: 'file',
  warehouse: 'wh',
  delivery: 'del',
  checkoutSession: 'cs',
  customer: 'cust',
  /** Customers of provider mode (the payment module on): created at the provider too (document 2). */
  providerCustomer: 'cus',
  manualOrder: 'mord',
  license: 'lic',
  discountCode: 'disc',
  discountRedemption: 'dred',
  portfolioItem: 'pfi',
  testimonial: 'tst',
  certification: 'crt',
  blogPost: 'post',
  shipment: 'shp',
  plan: 'plan',
  planPrice: 'price',
  testClock: 'clock',
  subscription: 'sub',
  invoice: 'inv',
  payout: 'pout',
  webhookEndpoint: 'whe',
  webhookAttempt: 'wha',
  aiGenerationRun: 'aigen',
  referralLink: 'ref',
  storefrontEvent: 'sev',
  workflowStart: 'wfs',
  emailMessage: 'eml',
  checkoutRefund: 're',
  balanceTransaction: 'txn',
  stockMovement: 'mvt',
  user: 'usr',
  dashboardSession: 'dss',
} as const;

export type IdPrefix = (typeof ID_PREFIXES)[keyof typeof ID_PREFIXES];

const RANDOM_POOL_SIZE = 4096;
let randomPool = randomBytes(RANDOM_POOL_SIZE);
let randomOffset = 0;

/**
 * ulid's default PRNG asks the OS for one byte per character (16 calls per id); drawing from a pooled
 * buffer of the same CSPRNG output keeps ids unpredictable at a fraction of the cost on hot paths.
 */
function pooledRandom(): number {
  if (randomOffset === RANDOM_POOL_SIZE) {
    randomPool = randomBytes(RANDOM_POOL_SIZE);
    randomOffset = 0;
  }
  const byte = randomPool[randomOffset] as number;
  randomOffset += 1;
  return byte / 256;
}

// Monotonic so ids minted in the same millisecond by one process still sort in creation order.
const nextUlid = monotonicFactory(pooledRandom);

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${nextUlid()}`;
}

const ULID = '[0-9A-HJKMNP-TV-Z]{26}';

export function isId(value: string, prefix?: IdPrefix): boolean {
  const pattern = prefix ? new RegExp(`^${prefix}_${ULID}$`) : new RegExp(`^[a-z]+_${ULID}$`);
  return pattern.test(value);
}
