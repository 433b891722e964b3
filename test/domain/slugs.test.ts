import { slugify, withTimestampSuffix } from '../../domain/products/slug';

// docs/decisions/catalogue.md, "Slug": the derived slug and its collision suffix.

describe('slugify', () => {
  it('drops accents, lowercases, joins runs of spaces, underscores and hyphens, strips the rest', () => {
    expect(slugify("Rock'n'Roll Tee")).toBe('rocknroll-tee');
    expect(slugify('Café Deluxe, 2nd Ed.')).toBe('cafe-deluxe-2nd-ed');
    expect(slugify('  Ebook __ Pro -- 2030  ')).toBe('ebook-pro-2030');
    expect(slugify('Ünïcödé Ñame')).toBe('unicode-name');
  });

  it('never starts or ends with a hyphen', () => {
    expect(slugify('-- Sale! --')).toBe('sale');
    expect(slugify('!!!Launch')).toBe('launch');
  });

  it('gives product, or product-<x>, to a name that leaves fewer than 2 characters', () => {
    expect(slugify('日本語')).toBe('product');
    expect(slugify('!?')).toBe('product');
    expect(slugify('X')).toBe('product-x');
    expect(slugify('é', 'post')).toBe('post-e');
  });

  it('keeps at most 80 characters and does not end the cut on a hyphen', () => {
    expect(slugify('a'.repeat(100))).toBe('a'.repeat(80));
    const cutAtHyphen = slugify(`${'a'.repeat(79)} tail`);
    expect(cutAtHyphen).toBe('a'.repeat(79));
  });
});

describe('withTimestampSuffix', () => {
  const suffixOf = (slug: string) => slug.slice(slug.lastIndexOf('-') + 1);

  it('appends a hyphen and the current time in microseconds, base 36', () => {
    const slug = withTimestampSuffix('ebook');
    expect(slug).toMatch(/^ebook-[0-9a-z]+$/);
    // The monotonic clock it reads may drift from the wall clock a little: a minute either way.
    expect(Math.abs(parseInt(suffixOf(slug), 36) - Date.now() * 1_000)).toBeLessThan(60_000_000);
  });

  it('cuts the base so the whole stays within 80, never ending the cut on a hyphen', () => {
    const long = withTimestampSuffix('b'.repeat(80));
    expect(long).toHaveLength(80);
    expect(long.startsWith(`${'b'.repeat(80 - suffixOf(long).length - 1)}-`)).toBe(true);
    // A base whose cut would end right after its hyphen loses that hyphen rather than doubling it.
    const keep = 80 - suffixOf(withTimestampSuffix('x')).length - 2;
    expect(withTimestampSuffix(`${'c'.repeat(keep)}-dddd`)).toMatch(new RegExp(`^c{${keep}}-[0-9a-z]+$`));
  });

  it('is strictly increasing within the process, even within one microsecond', () => {
    const suffixes = Array.from({ length: 1_000 }, () => parseInt(suffixOf(withTimestampSuffix('x')), 36));
    for (let i = 1; i < suffixes.length; i += 1) expect(suffixes[i]).toBeGreaterThan(suffixes[i - 1]!);
  });
});
