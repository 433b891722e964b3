import { DiscountCode, DiscountRedemption } from '../../db/models';
import type { Tenant } from '../../db/tenancy';
import { redeemDiscount, type Redemption } from '../../domain/discounts/redeem';
import { quoteDiscount } from '../../domain/pricing/cart';
import { AppError } from '../../lib/errors';
import { useTestApi } from '../helpers/context';
import { createDiscountCode, createProduct } from '../helpers/discounts';

const t = useTestApi();

async function setup(body: Record<string, unknown>) {
  const ws = await t.ctx.createWorkspace();
  const tenant: Tenant = { accountId: ws.accountId, environment: 'test' };
  const code = await createDiscountCode(t.api.baseUrl, ws.secretKey, body);
  const productId = await createProduct(t.api.baseUrl, ws.secretKey);
  const redeem = (redemption: Redemption) => t.ctx.sequelize.transaction((tx) => redeemDiscount(tx, tenant, code.id, redemption));
  return { ws, tenant, code, productId, redeem };
}

const usesOf = async (id: string) => (await DiscountCode.findByPk(id))!.usesTotal;

describe('redeemDiscount', () => {
  it('applies exactly maxUsesTotal of many concurrent redemptions', async () => {
    const { code, redeem } = await setup({ maxUsesTotal: 3 });
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => redeem({ reference: `cs_${i}`, customerEmail: `buyer${i}@example.com`, amount: 1_000 })));
    expect(results.filter((r) => r === 'applied')).toHaveLength(3);
    expect(results.filter((r) => r === 'MAX_USES_REACHED')).toHaveLength(7);
    expect(await usesOf(code.id)).toBe(3);
    expect(await DiscountRedemption.count({ where: { discountId: code.id } })).toBe(3);
  });

  it('applies exactly maxUsesPerCustomer of concurrent redemptions by one buyer, counted by e-mail case-insensitively', async () => {
    const { code, redeem } = await setup({ maxUsesPerCustomer: 2 });
    const results = await Promise.all(
      ['A@Example.com', 'a@example.com', 'a@EXAMPLE.com', 'A@EXAMPLE.COM', 'a@example.COM'].map((customerEmail, i) => redeem({ reference: `cs_${i}`, customerEmail, amount: 1 })),
    );
    expect(results.filter((r) => r === 'applied')).toHaveLength(2);
    expect(results.filter((r) => r === 'CUSTOMER_LIMIT_REACHED')).toHaveLength(3);
    expect(await redeem({ reference: 'cs_other', customerEmail: 'b@example.com', amount: 1 })).toBe('applied');
    expect(await usesOf(code.id)).toBe(3);
    const emails = (await DiscountRedemption.findAll({ where: { discountId: code.id } })).map((r) => r.customerEmail);
    expect(new Set(emails)).toEqual(new Set(['a@example.com', 'b@example.com']));
  });

  it('counts a customer record’s uses by id, and a use by either its id or its e-mail as the same buyer', async () => {
    const { redeem } = await setup({ maxUsesPerCustomer: 1 });
    expect(await redeem({ reference: 'cs_1', customerId: 'cust_1', customerEmail: 'one@example.com', amount: 1 })).toBe('applied');
    expect(await redeem({ reference: 'cs_2', customerId: 'cust_1', amount: 1 })).toBe('CUSTOMER_LIMIT_REACHED');
    expect(await redeem({ reference: 'cs_3', customerEmail: 'ONE@example.com', amount: 1 })).toBe('CUSTOMER_LIMIT_REACHED');
    expect(await redeem({ reference: 'cs_4', customerId: 'cust_2', customerEmail: 'two@example.com', amount: 1 })).toBe('applied');
  });

  it('counts a reference once: a retried completion answers applied without a second use', async () => {
    const { code, redeem } = await setup({ maxUsesTotal: 1 });
    expect(await redeem({ reference: 'cs_same', customerEmail: 'a@example.com', amount: 5 })).toBe('applied');
    expect(await redeem({ reference: 'cs_same', customerEmail: 'a@example.com', amount: 5 })).toBe('applied');
    expect(await redeem({ reference: 'cs_next', customerEmail: 'b@example.com', amount: 5 })).toBe('MAX_USES_REACHED');
    expect(await usesOf(code.id)).toBe(1);
  });

  it('refuses a code of another workspace or environment as not found', async () => {
    const { code } = await setup({});
    const other = await t.ctx.createWorkspace();
    for (const tenant of [
      { accountId: other.accountId, environment: 'test' },
      { accountId: code.accountId as string, environment: 'live' },
    ] as Tenant[]) {
      await expect(t.ctx.sequelize.transaction((tx) => redeemDiscount(tx, tenant, code.id, { reference: 'cs_x', amount: 1 }))).rejects.toMatchObject(
        new AppError('RESOURCE_NOT_FOUND', 'Discount code not found'),
      );
    }
  });

  it('feeds the validation’s per-customer check: prior uses by e-mail reach the limit, other buyers and anonymous quotes pass', async () => {
    const { tenant, code, productId, redeem } = await setup({ maxUsesPerCustomer: 2 });
    const check = (who: { customerEmail?: string; customerId?: string }) =>
      quoteDiscount(t.ctx.sequelize, tenant, { code: code.code, items: [{ productId, quantity: 1 }], ...who });
    await redeem({ reference: 'cs_1', customerEmail: 'buyer@example.com', amount: 1 });
    expect(await check({ customerEmail: 'BUYER@example.com' })).toMatchObject({ valid: true });
    await redeem({ reference: 'cs_2', customerEmail: 'buyer@example.com', amount: 1 });
    expect(await check({ customerEmail: 'BUYER@example.com' })).toMatchObject({ valid: false, reason: 'CUSTOMER_LIMIT_REACHED' });
    expect(await check({ customerEmail: 'someone@example.com' })).toMatchObject({ valid: true });
    expect(await check({})).toMatchObject({ valid: true });
  });
});
