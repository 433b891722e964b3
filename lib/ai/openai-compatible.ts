import OpenAI, { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import {
  productCopySchema,
  TextGenerationError,
  type ProductCopy,
  type ProductCopyInput,
  type TextGenerator,
} from './text-generator';

export interface OpenAiCompatibleOptions {
  /** e.g. https://api.openai.com/v1, http://127.0.0.1:11434/v1 (Ollama), http://vllm:8000/v1 */
  baseURL: string;
  /** Optional: local servers such as Ollama need none, and then no Authorization header is sent. */
  apiKey?: string;
  model: string;
  timeoutMs: number;
}

const SYSTEM_PROMPT = [
  'You write product copy for an online store.',
  'Answer with one JSON object and nothing else, with exactly these keys:',
  '"description": a persuasive Markdown product description (120 to 300 words) based only on the facts given;',
  '"seoTitle": a search result title of at most 60 characters;',
  '"metaDescription": a search result snippet of at most 155 characters;',
  '"featureBullets": an array of 3 to 6 short single-line feature bullets without leading dashes.',
  'Do not invent specifications, prices, discounts or claims that the facts do not support.',
].join(' ');

// Some local models wrap JSON in a Markdown fence even when asked not to.
function unfence(text: string): string {
  const match = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/i.exec(text);
  return match?.[1] ?? text;
}

function classify(err: unknown): unknown {
  // Cancellation (activity canceled or timed out) is not a provider verdict; let it surface as such.
  if (err instanceof APIUserAbortError) return err;
  // Timeouts (APIConnectionTimeoutError) and refused/reset connections: the next attempt may reach it.
  if (err instanceof APIConnectionError) return new TextGenerationError(`AI provider unreachable: ${err.message}`, true);
  if (err instanceof APIError) {
    const status = err.status;
    const retryable = status === undefined || status === 408 || status === 429 || status >= 500;
    return new TextGenerationError(`AI provider answered ${status ?? 'with an error'}: ${err.message}`, retryable, status);
  }
  return err;
}

/** Chat-completions client for OpenAI and the servers that speak its API (Ollama, vLLM, LM Studio, …). */
export class OpenAiCompatibleGenerator implements TextGenerator {
  readonly kind = 'openai-compatible';
  private readonly client: OpenAI;

  constructor(private readonly options: OpenAiCompatibleOptions) {
    this.client = new OpenAI({
      baseURL: options.baseURL,
      apiKey: options.apiKey ?? '',
      // Explicit so the SDK never picks up OPENAI_* variables from the environment.
      organization: null,
      project: null,
      webhookSecret: null,
      timeout: options.timeoutMs,
      // Temporal owns retries (with backoff and a bounded attempt count); the SDK must not add its own.
      maxRetries: 0,
      defaultHeaders: options.apiKey ? {} : { Authorization: null },
    });
  }

  async generateProductCopy(input: ProductCopyInput, signal?: AbortSignal): Promise<ProductCopy> {
    let content: string | null | undefined;
    try {
      const completion = await this.client.chat.completions.create(
        {
          model: this.options.model,
          temperature: 0.4,
          response_format: { type: 'json_object' },
          messages: [
            { role: 'system', content: SYSTEM_PROMPT },
            { role: 'user', content: `Product facts as JSON:\n${JSON.stringify(input)}` },
          ],
        },
        { signal },
      );
      content = completion.choices[0]?.message?.content;
    } catch (err) {
      throw classify(err);
    }
    return parseCopy(content);
  }
}

/** Invalid output is a provider error like any other: retryable, since a model may answer well next time. */
export function parseCopy(content: string | null | undefined): ProductCopy {
  if (!content) throw new TextGenerationError('AI provider returned no content', true);
  let json: unknown;
  try {
    json = JSON.parse(unfence(content));
  } catch {
    throw new TextGenerationError('AI provider returned output that is not JSON', true);
  }
  const parsed = productCopySchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    throw new TextGenerationError(`AI provider returned JSON of the wrong shape: ${problems}`, true);
  }
  return parsed.data;
}
