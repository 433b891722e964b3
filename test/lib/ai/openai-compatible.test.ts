import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { OpenAiCompatibleGenerator } from '../../../lib/ai/openai-compatible';
import { TextGenerationError, type ProductCopyInput } from '../../../lib/ai/text-generator';
import { copyJson, startChatCompletionsServer, type ChatCompletionsServer } from '../../helpers/chat-completions-server';

const product: ProductCopyInput = {
  name: 'Trail Runner 2',
  type: 'physical',
  description: 'Lightweight shoe.',
  price: 120,
  currency: 'USD',
  tags: ['running', 'outdoor'],
  brand: 'Acme',
  googleProductCategory: null,
};

let server: ChatCompletionsServer;
beforeEach(async () => {
  server = await startChatCompletionsServer();
});
afterEach(() => server.close());

const generator = (overrides: Partial<ConstructorParameters<typeof OpenAiCompatibleGenerator>[0]> = {}) =>
  new OpenAiCompatibleGenerator({ baseURL: server.baseURL, apiKey: 'sk-test-secret-123', model: 'test-model-1', timeoutMs: 5_000, ...overrides });

async function failure(promise: Promise<unknown>): Promise<TextGenerationError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TextGenerationError);
  return err as TextGenerationError;
}

describe('OpenAI-compatible text generator (real HTTP against a local server)', () => {
  it('posts a JSON-mode chat completion with the model, the bearer key and the product facts, and returns validated copy', async () => {
    server.reply(() => ({ content: copyJson({ featureBullets: ['  Grippy\nsole ', 'Light'] }) }));
    const copy = await generator().generateProductCopy(product);

    expect(copy).toEqual({
      description: 'A **great** product for testing, written by the provider.',
      seoTitle: 'Great Product | Test',
      metaDescription: 'Buy the great product for testing.',
      // Bullets are single lines (stored newline-joined), so inner whitespace is collapsed.
      featureBullets: ['Grippy sole', 'Light'],
    });
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request!.path).toBe('/v1/chat/completions');
    expect(request!.headers.authorization).toBe('Bearer sk-test-secret-123');
    expect(request!.body).toMatchObject({ model: 'test-model-1', response_format: { type: 'json_object' } });
    const messages = request!.body.messages as { role: string; content: string }[];
    expect(messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(messages[0]!.content).toMatch(/featureBullets/);
    expect(messages[1]!.content).toContain('"name":"Trail Runner 2"');
    expect(messages[1]!.content).toContain('"brand":"Acme"');
  });

  it('sends no Authorization header when no API key is configured (Ollama)', async () => {
    await generator({ apiKey: undefined }).generateProductCopy(product);
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('accepts JSON wrapped in a Markdown fence', async () => {
    server.reply(() => ({ content: '```json\n' + copyJson() + '\n```' }));
    await expect(generator().generateProductCopy(product)).resolves.toMatchObject({ seoTitle: 'Great Product | Test' });
  });

  it('treats output that is not JSON as a retryable provider error', async () => {
    server.reply(() => ({ content: 'Sure! Here is your copy: {"description": ' }));
    const err = await failure(generator().generateProductCopy(product));
    expect(err.retryable).toBe(true);
    expect(err.message).toMatch(/not JSON/);
  });

  it('treats JSON of the wrong shape as a retryable provider error', async () => {
    server.reply(() => ({ content: JSON.stringify({ description: 'Only a description' }) }));
    const err = await failure(generator().generateProductCopy(product));
    expect(err.retryable).toBe(true);
    expect(err.message).toMatch(/seoTitle/);

    server.reply(() => ({ content: copyJson({ featureBullets: [] }) }));
    expect((await failure(generator().generateProductCopy(product))).retryable).toBe(true);
  });

  it('classifies 5xx, 429 and 408 as retryable and makes exactly one request per call (Temporal owns retries)', async () => {
    for (const status of [500, 503, 429, 408]) {
      server.requests.length = 0;
      server.reply(() => ({ status, error: 'try later' }));
      const err = await failure(generator().generateProductCopy(product));
      expect({ status: err.status, retryable: err.retryable }).toEqual({ status, retryable: true });
      expect(server.requests).toHaveLength(1);
    }
  });

  it('classifies other 4xx (bad request, bad key, unknown model) as non-retryable', async () => {
    for (const status of [400, 401, 403, 404, 422]) {
      server.reply(() => ({ status, error: 'rejected' }));
      const err = await failure(generator().generateProductCopy(product));
      expect({ status: err.status, retryable: err.retryable }).toEqual({ status, retryable: false });
    }
  });

  it('never puts the API key into an error message', async () => {
    server.reply(() => ({ status: 401, error: 'Incorrect API key provided' }));
    const err = await failure(generator().generateProductCopy(product));
    expect(`${err.message} ${err.stack}`).not.toContain('sk-test-secret-123');
  });

  it('treats a timeout as retryable', async () => {
    server.reply(() => ({ content: copyJson(), delayMs: 1_500 }));
    const err = await failure(generator({ timeoutMs: 200 }).generateProductCopy(product));
    expect(err.retryable).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it('treats a dropped connection and a refused connection as retryable', async () => {
    server.reply(() => ({ destroy: true }));
    expect((await failure(generator().generateProductCopy(product))).retryable).toBe(true);

    // A port that was free a moment ago: nothing listens there.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const refused = new OpenAiCompatibleGenerator({ baseURL: `http://127.0.0.1:${port}/v1`, model: 'm', timeoutMs: 2_000 });
    expect((await failure(refused.generateProductCopy(product))).retryable).toBe(true);
  });

  it('stops when the caller aborts (activity cancellation) without classifying it as a provider error', async () => {
    server.reply(() => ({ content: copyJson(), delayMs: 2_000 }));
    const controller = new AbortController();
    const pending = generator().generateProductCopy(product, controller.signal);
    setTimeout(() => controller.abort(), 100);
    const err = await pending.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeDefined();
    expect(err).not.toBeInstanceOf(TextGenerationError);
  });
});
