import { z } from 'zod';

/** The product fields a generator may read. Images are deliberately absent: generation never touches them. */
export interface ProductCopyInput {
  name: string;
  type: 'digital' | 'subscription' | 'physical';
  description: string | null;
  price: number;
  currency: string;
  tags: string[];
  brand: string | null;
  googleProductCategory: string | null;
}

// Single-line text: bullets are stored newline-joined, so a newline inside one would split it.
const line = (max: number) =>
  z
    .string()
    .transform((s) => s.replace(/\s+/g, ' ').trim())
    .pipe(z.string().min(1).max(max));

/**
 * What a generator must return. Hard limits are looser than what the prompt asks for (60 / 155 chars) so
 * a slightly long answer is kept rather than paid for again; `description` follows the API's write limit.
 * Every single value fits the 500-character metadata value limit it is stored under.
 */
export const productCopySchema = z.object({
  description: z.string().trim().min(1).max(10_000),
  seoTitle: line(120),
  metaDescription: line(320),
  featureBullets: z.array(line(200)).min(1).max(10),
});

export type ProductCopy = z.output<typeof productCopySchema>;

export interface TextGenerator {
  /** Shown in logs and docs: `offline` or `openai-compatible`. */
  readonly kind: 'offline' | 'openai-compatible';
  generateProductCopy(input: ProductCopyInput, signal?: AbortSignal): Promise<ProductCopy>;
}

/**
 * A provider call that did not produce usable copy. `retryable` is false only for answers that will not
 * change on a retry (4xx other than 408 and 429: bad key, unknown model, rejected request).
 */
export class TextGenerationError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'TextGenerationError';
  }
}
