import { createTextGenerator } from '../../../lib/ai';
import { OfflineTextGenerator } from '../../../lib/ai/offline';
import { OpenAiCompatibleGenerator } from '../../../lib/ai/openai-compatible';
import { loadConfig } from '../../../lib/config';
import { configProblems } from '../../helpers/config';


describe('AI provider configuration', () => {
  it('defaults to no provider (the offline generator) and a 60s timeout', () => {
    const config = loadConfig({});
    expect([config.AI_BASE_URL, config.AI_API_KEY, config.AI_MODEL, config.AI_TIMEOUT]).toEqual([undefined, undefined, undefined, 60_000]);
    expect(createTextGenerator(config)).toBeInstanceOf(OfflineTextGenerator);
  });

  it('uses the OpenAI-compatible client when AI_BASE_URL and AI_MODEL are set; the key is optional (Ollama)', () => {
    const ollama = loadConfig({ AI_BASE_URL: 'http://127.0.0.1:11434/v1', AI_MODEL: 'llama3.1', AI_TIMEOUT: '2m' });
    expect(ollama.AI_TIMEOUT).toBe(120_000);
    expect(createTextGenerator(ollama)).toBeInstanceOf(OpenAiCompatibleGenerator);
    const openai = loadConfig({ AI_BASE_URL: 'https://api.openai.com/v1', AI_MODEL: 'gpt-4o-mini', AI_API_KEY: 'sk-x' });
    expect(createTextGenerator(openai).kind).toBe('openai-compatible');
  });

  it('names each bad AI variable', () => {
    expect(configProblems({ AI_BASE_URL: 'ftp://models.local' })).toEqual([expect.stringMatching(/^AI_BASE_URL: /)]);
    expect(configProblems({ AI_BASE_URL: 'http://127.0.0.1:11434/v1' })).toEqual([expect.stringMatching(/^AI_MODEL: required when AI_BASE_URL/)]);
    expect(configProblems({ AI_MODEL: 'gpt-4o-mini' })).toEqual([expect.stringMatching(/^AI_BASE_URL: required/)]);
    expect(configProblems({ AI_API_KEY: 'sk-x' })).toEqual([expect.stringMatching(/^AI_BASE_URL: required/)]);
    expect(configProblems({ AI_TIMEOUT: 'soon' })).toEqual([expect.stringMatching(/^AI_TIMEOUT: /)]);
    expect(configProblems({ AI_TIMEOUT: '10m' })).toEqual(['AI_TIMEOUT: must be at most 5m']);
    expect(configProblems({ AI_TIMEOUT: '0s' })).toEqual(['AI_TIMEOUT: must be at least 1s']);
  });

  it('never echoes the API key in a configuration error', () => {
    expect(configProblems({ AI_API_KEY: 'sk-very-secret' }).join('\n')).not.toContain('sk-very-secret');
  });
});
