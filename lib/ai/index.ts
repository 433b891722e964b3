import type { Config } from '../config';
import { OfflineTextGenerator } from './offline';
import { OpenAiCompatibleGenerator } from './openai-compatible';
import type { TextGenerator } from './text-generator';

export type { ProductCopy, ProductCopyInput, TextGenerator } from './text-generator';
export { TextGenerationError } from './text-generator';

/** The configured provider when AI_BASE_URL is set, else the built-in offline generator. */
export function createTextGenerator(
  config: Pick<Config, 'AI_BASE_URL' | 'AI_API_KEY' | 'AI_MODEL' | 'AI_TIMEOUT'>,
): TextGenerator {
  if (!config.AI_BASE_URL || !config.AI_MODEL) return new OfflineTextGenerator();
  return new OpenAiCompatibleGenerator({
    baseURL: config.AI_BASE_URL,
    apiKey: config.AI_API_KEY,
    model: config.AI_MODEL,
    timeoutMs: config.AI_TIMEOUT,
  });
}
