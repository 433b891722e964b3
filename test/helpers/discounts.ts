import { DiscountCode, DiscountRedemption } from '../../db/models';
import { http } from './context';

export const DISCOUNT_CODES = '/api/v1/discount-codes';
export type DiscountCodeDto = Record<string, unknown> & { id: string; code: string; usesTotal: number; active: boolean };

/** A product through the API (published unless said otherwise); returns its id. */
export async function createProduct(baseUrl: string, key: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await http<{ data: { id: string } }>(baseUrl, 'POST', '/api/v1/storefront/products', {
    key,
    body: { name: 'Ebook', price: 100_000, currency: 'IDR', type: 'digital', published: true, ...body },
  });
  if (res.status !== 201) throw new Error(`product create answered ${res.status}: ${res.text}`);
  return res.body.data.id;
}

/** A discount code through the API; defaults to a 10% IDR cart code. */
export async function createDiscountCode(baseUrl: string, key: string, body: Record<string, unknown> = {}): Promise<DiscountCodeDto> {
  const res = await http<{ data: DiscountCodeDto }>(baseUrl, 'POST', DISCOUNT_CODES, {
    key,
    body: { code: `C${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`, type: 'percent', value: 10, currency: 'IDR', ...body },
  });
  if (res.status !== 201) throw new Error(`discount create answered ${res.status}: ${res.text}`);
  return res.body.data;
}

/** Every discount row and redemption of a workspace, to prove a refusal wrote nothing. */
export async function discountSnapshot(accountId: string) {
  const [codes, redemptions] = await Promise.all([
    DiscountCode.findAll({ where: { accountId }, order: [['id', 'ASC']], raw: true }),
    DiscountRedemption.findAll({ where: { accountId }, order: [['id', 'ASC']], raw: true }),
  ]);
  return { codes, redemptions };
}
