import type { ProductCopy, ProductCopyInput, TextGenerator } from './text-generator';

const TYPE_PHRASE: Record<ProductCopyInput['type'], { noun: string; bullet: string }> = {
  digital: { noun: 'digital product', bullet: 'Instant digital delivery after purchase' },
  subscription: { noun: 'subscription', bullet: 'Ongoing access for as long as the subscription runs' },
  physical: { noun: 'physical product', bullet: 'Shipped to your door' },
};

// Fixed locale so the same product always yields the same copy, whatever the host's locale.
const amount = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** Cuts at a word boundary and marks the cut, so titles and snippets never end mid-word. */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,.;:–-]+$/, '')}…`;
}

function firstSentence(text: string): string {
  const flat = text.replace(/[#*_>`]/g, '').replace(/\s+/g, ' ').trim();
  const match = /^.*?[.!?](?=\s|$)/.exec(flat);
  return match ? match[0] : flat;
}

/**
 * The built-in offline generator: composes copy from the product's own fields with fixed templates, no
 * network and no model. Used when no AI provider is configured (AI_BASE_URL unset). Deterministic, and
 * stable when re-run: its own lead line and bullet list are recognised and not nested a second time.
 */
export class OfflineTextGenerator implements TextGenerator {
  readonly kind = 'offline';

  async generateProductCopy(input: ProductCopyInput): Promise<ProductCopy> {
    const name = input.name.trim();
    const brand = input.brand?.trim() || null;
    const type = TYPE_PHRASE[input.type];
    const price = `${input.currency} ${amount.format(input.price)}`;
    const tags = input.tags.map((t) => t.trim()).filter(Boolean);

    const featureBullets = [
      type.bullet,
      ...(brand ? [`Made by ${brand}`] : []),
      ...(input.googleProductCategory?.trim() ? [`Category: ${input.googleProductCategory.trim()}`] : []),
      ...(tags.length ? [`Great for: ${tags.join(', ')}`] : []),
      `Price: ${price}`,
    ];

    const lead = `**${name}**${brand ? ` by ${brand}` : ''} is a ${type.noun} available for ${price}.`;
    const bulletBlock = featureBullets.map((b) => `- ${b}`).join('\n');
    // The merchant's own text stays in the middle; a previous offline run's lead and bullets are dropped.
    const own = (input.description ?? '')
      .split(/\n{2,}/)
      .map((p) => p.trim())
      .filter((p) => p && p !== lead && p !== bulletBlock);
    const description = [lead, ...own, bulletBlock].join('\n\n');

    const [first] = own;
    const summary = first ? firstSentence(first) : `${name}${brand ? ` by ${brand}` : ''}, a ${type.noun}.`;
    return {
      description,
      seoTitle: clip(brand ? `${name} | ${brand}` : name, 60),
      metaDescription: clip(`${summary} ${type.bullet}. ${price}.`.replace(/\.\./g, '.'), 155),
      featureBullets,
    };
  }
}
