import { OfflineTextGenerator } from '../../../lib/ai/offline';
import { productCopySchema, type ProductCopyInput } from '../../../lib/ai/text-generator';

const base: ProductCopyInput = {
  name: 'Pixel Icons Pack',
  type: 'digital',
  description: 'Two hundred crisp icons for dashboards. Vector and PNG.',
  price: 150000,
  currency: 'IDR',
  tags: ['icons', 'design'],
  brand: 'Studio Kita',
  googleProductCategory: 'Software > Digital Goods',
};

const generate = (input: ProductCopyInput) => new OfflineTextGenerator().generateProductCopy(input);

describe('offline text generator (built-in, no provider)', () => {
  it('composes valid copy from the product fields', async () => {
    const copy = await generate(base);
    expect(productCopySchema.safeParse(copy).success).toBe(true);
    expect(copy.description).toContain('**Pixel Icons Pack** by Studio Kita is a digital product available for IDR 150,000.');
    // The merchant's own text is kept.
    expect(copy.description).toContain('Two hundred crisp icons for dashboards. Vector and PNG.');
    expect(copy.seoTitle).toBe('Pixel Icons Pack | Studio Kita');
    expect(copy.metaDescription).toBe('Two hundred crisp icons for dashboards. Instant digital delivery after purchase. IDR 150,000.');
    expect(copy.featureBullets).toEqual([
      'Instant digital delivery after purchase',
      'Made by Studio Kita',
      'Category: Software > Digital Goods',
      'Great for: icons, design',
      'Price: IDR 150,000',
    ]);
    expect(copy.description.endsWith(copy.featureBullets.map((b) => `- ${b}`).join('\n'))).toBe(true);
  });

  it('is deterministic and does not nest its own output when re-run on it', async () => {
    const first = await generate(base);
    expect(await generate(base)).toEqual(first);
    const again = await generate({ ...base, description: first.description });
    expect(again).toEqual(first);
  });

  it('works from the required fields alone', async () => {
    const copy = await generate({ ...base, description: null, tags: [], brand: null, googleProductCategory: null, type: 'physical', currency: 'USD', price: 25 });
    expect(copy).toEqual({
      description: '**Pixel Icons Pack** is a physical product available for USD 25.\n\n- Shipped to your door\n- Price: USD 25',
      seoTitle: 'Pixel Icons Pack',
      metaDescription: 'Pixel Icons Pack, a physical product. Shipped to your door. USD 25.',
      featureBullets: ['Shipped to your door', 'Price: USD 25'],
    });
  });

  it('keeps the SEO title and meta description within search-result lengths, cut at a word', async () => {
    const copy = await generate({ ...base, name: 'An extraordinarily long product name that keeps going well past sixty characters', description: 'word '.repeat(100) });
    expect(copy.seoTitle.length).toBeLessThanOrEqual(60);
    expect(copy.seoTitle).toMatch(/ \w+…$/);
    expect(copy.metaDescription.length).toBeLessThanOrEqual(155);
    expect(copy.metaDescription.endsWith('…')).toBe(true);
  });

  it('has no input for images, so it cannot touch thumbnail or coverImages', async () => {
    const withImages = { ...base, thumbnail: 'https://cdn.example/t.png', coverImages: ['https://cdn.example/c.png'] };
    const copy = await generate(withImages);
    expect(JSON.stringify(copy)).not.toContain('cdn.example');
    expect(Object.keys(copy).sort()).toEqual(['description', 'featureBullets', 'metaDescription', 'seoTitle']);
  });
});
