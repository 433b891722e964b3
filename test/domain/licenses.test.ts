import { QueryTypes } from 'sequelize';
import { issueLicense } from '../../domain/licenses/issue';
import { KEY_ALPHABET, licenseKeyPrefix, newLicenseKey } from '../../domain/licenses/key';
import { AppError } from '../../lib/errors';
import { insertProduct } from '../fixtures/products';
import { newTenant } from '../fixtures/workspaces';
import { createTestContext, type TestContext } from '../helpers/context';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const KEY_PATTERN = /^[A-Z0-9]{1,6}-[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{4}-[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{4}-[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{4}-[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{4}$/;

describe('licence keys', () => {
  it('are <PREFIX>-XXXX-XXXX-XXXX-XXXX of 31 unambiguous symbols, each drawn about equally often', () => {
    expect(KEY_ALPHABET).toHaveLength(31);
    expect(KEY_ALPHABET).not.toMatch(/[01OIL]/);
    const counts = new Map<string, number>();
    const keys = Array.from({ length: 3000 }, () => newLicenseKey('EBOOK'));
    for (const key of keys) {
      expect(key).toMatch(KEY_PATTERN);
      for (const symbol of key.slice('EBOOK-'.length).replaceAll('-', '')) counts.set(symbol, (counts.get(symbol) ?? 0) + 1);
    }
    expect(new Set(keys).size).toBe(keys.length);
    // 48000 symbols over 31: about 1548 each; a biased draw (e.g. byte % 31 without rejection) skews the first ones by ~13%.
    expect([...counts.keys()].sort().join('')).toBe([...KEY_ALPHABET].sort().join(''));
    for (const n of counts.values()) expect(Math.abs(n - 48000 / 31)).toBeLessThan(200);
  });

  it('take their prefix from the first 6 letters and digits of the product slug, upper-cased', () => {
    expect(licenseKeyPrefix('ebook-pro-2030')).toBe('EBOOKP');
    expect(licenseKeyPrefix('ai-kit')).toBe('AIKIT');
    expect(licenseKeyPrefix('x1')).toBe('X1');
    expect(licenseKeyPrefix('--')).toBe('LIC');
  });
});

describe('issueLicense', () => {
  async function productWith(maxActivations: number) {
    const tenant = await newTenant(ctx);
    const productId = await insertProduct(ctx.sequelize, tenant);
    await ctx.sequelize.query(`UPDATE products SET slug = 'ebook-pro-' || lower(right(id, 6)), max_activations = :maxActivations WHERE id = :productId`, {
      replacements: { productId, maxActivations },
    });
    return { tenant, productId };
  }

  const licencesOf = (accountId: string) =>
    ctx.sequelize.query<{ id: string }>(`SELECT id FROM licenses WHERE account_id = :accountId`, { type: QueryTypes.SELECT, replacements: { accountId } });

  it('issues an active licence with a key of the product’s prefix and the product’s activation cap at this moment', async () => {
    const { tenant, productId } = await productWith(3);
    const expiresAt = new Date('2031-01-01T00:00:00Z');
    const licence = await ctx.sequelize.transaction((tx) => issueLicense(tx, tenant, { productId, customerId: 'cust_1', expiresAt }));
    expect(licence).toEqual({
      id: expect.stringMatching(/^lic_[0-9A-Z]{26}$/),
      accountId: tenant.accountId,
      key: expect.stringMatching(KEY_PATTERN),
      productId,
      customerId: 'cust_1',
      checkoutSessionId: null,
      activations: 0,
      maxActivations: 3,
      status: 'active',
      expiresAt: expiresAt.toISOString(),
      revokedAt: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(licence.key.startsWith('EBOOKP-')).toBe(true);
    await ctx.sequelize.query(`UPDATE products SET max_activations = 9 WHERE id = :productId`, { replacements: { productId } });
    const [row] = await ctx.sequelize.query<{ max_activations: number }>(`SELECT max_activations FROM licenses WHERE id = :id`, {
      type: QueryTypes.SELECT,
      replacements: { id: licence.id },
    });
    expect(row!.max_activations).toBe(3);
  });

  it('is idempotent per (checkout session, line): a retry gets the licence it issued, another line its own', async () => {
    const { tenant, productId } = await productWith(1);
    const issue = (lineKey?: string) => ctx.sequelize.transaction((tx) => issueLicense(tx, tenant, { productId, checkoutSessionId: 'cs_retry', lineKey }));
    const first = await issue();
    expect(first.checkoutSessionId).toBe('cs_retry');
    expect((await issue()).id).toBe(first.id);
    expect((await issue(productId)).id).toBe(first.id);
    const otherLine = await issue('line-2');
    expect(otherLine.id).not.toBe(first.id);
    expect(await licencesOf(tenant.accountId)).toHaveLength(2);
  });

  it('issues once under two concurrent tries of one line', async () => {
    const { tenant, productId } = await productWith(1);
    const tries = await Promise.all(
      [1, 2].map(() => ctx.sequelize.transaction((tx) => issueLicense(tx, tenant, { productId, checkoutSessionId: 'cs_race', lineKey: 'line-1' }))),
    );
    expect(tries[0]!.key).toBe(tries[1]!.key);
    expect(await licencesOf(tenant.accountId)).toHaveLength(1);
  });

  it('refuses a product of another workspace or environment with RESOURCE_NOT_FOUND and writes nothing', async () => {
    const { productId } = await productWith(1);
    const other = await newTenant(ctx);
    const attempt = ctx.sequelize.transaction((tx) => issueLicense(tx, other, { productId }));
    await expect(attempt).rejects.toBeInstanceOf(AppError);
    await expect(attempt).rejects.toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
    expect(await licencesOf(other.accountId)).toHaveLength(0);
  });
});
