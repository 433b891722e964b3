import { crossSell, inventoryOf, toPublicVariant, type PublicProduct, type PublicVariant } from '../../domain/storefront/public';

// docs/decisions/storefront.md, the public product page: cross-sell ranking and the variants' prices and stock.

/** A product as the page reads it; only the id (a ULID: newer sorts later) and the tags matter here. */
const product = (id: string, tags: string[]) => ({ id, tags }) as PublicProduct;

describe('crossSell', () => {
  const self = product('prod_05', ['ebook', 'python', 'beginner']);

  it('ranks products sharing the most tags first, then the newest, at most 4, never the product itself', () => {
    const catalogue = [
      self,
      product('prod_01', ['ebook']),
      product('prod_02', ['ebook', 'python']),
      product('prod_03', ['ebook', 'python', 'beginner']),
      product('prod_04', ['python']),
      product('prod_06', ['music']),
      product('prod_07', ['beginner']),
    ];
    expect(crossSell(self, catalogue).map((p) => p.id)).toEqual(['prod_03', 'prod_02', 'prod_07', 'prod_04']);
  });

  it('is empty for a product without tags or without any product sharing one', () => {
    expect(crossSell(product('prod_09', []), [product('prod_01', [])])).toEqual([]);
    expect(crossSell(self, [product('prod_06', ['music'])])).toEqual([]);
  });
});

describe('public variants', () => {
  const row = { id: 'var_1', productId: 'prod_1', sku: null, name: 'Large', priceDelta: '-5', isDefault: false, available: '7' };

  it('resolve the price as product price + delta, and show stock only while the fulfillment module is on', () => {
    expect(toPublicVariant(row, 20, true)).toMatchObject({ priceDelta: -5, price: 15, available: 7 });
    expect(toPublicVariant(row, 20, false).available).toBeNull();
  });

  it('sum stock over the variants: in stock when any unit is available', () => {
    const variant = (available: number | null) => ({ available }) as PublicVariant;
    expect(inventoryOf([variant(0), variant(3), variant(4)])).toEqual({ available: 7, inStock: true });
    expect(inventoryOf([variant(0), variant(0)])).toEqual({ available: 0, inStock: false });
    expect(inventoryOf([])).toEqual({ available: 0, inStock: false });
  });
});
