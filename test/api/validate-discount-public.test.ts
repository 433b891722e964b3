import { http, useTestApi } from '../helpers/context';
import { createDiscountCode, createProduct } from '../helpers/discounts';
import { expectError } from '../helpers/expect';

const t = useTestApi();

const VALIDATE = '/api/v1/storefront/public/validate-discount';

async function merchant() {
  const ws = await t.ctx.createWorkspace();
  const liveProduct = await createProduct(t.api.baseUrl, ws.liveSecretKey);
  const testProduct = await createProduct(t.api.baseUrl, ws.secretKey);
  await createDiscountCode(t.api.baseUrl, ws.liveSecretKey, { code: 'LIVEONLY' });
  await createDiscountCode(t.api.baseUrl, ws.secretKey, { code: 'TESTONLY' });
  return { ws, liveProduct, testProduct };
}

describe('public storefront: which workspace and environment', () => {
  it('acts on the live environment without a key, and on the key’s environment with one of the merchant’s own keys', async () => {
    const { ws, liveProduct, testProduct } = await merchant();
    const ask = (code: string, productId: string, key?: string) =>
      http<{ data: { valid: boolean; reason?: string } }>(t.api.baseUrl, 'POST', VALIDATE, { key, body: { code, merchantSlug: ws.slug, items: [{ productId, quantity: 1 }] } });

    expect((await ask('LIVEONLY', liveProduct)).body.data).toMatchObject({ valid: true });
    expect((await ask('TESTONLY', liveProduct)).body.data).toMatchObject({ valid: false, reason: 'CODE_NOT_FOUND' });
    expectError(await ask('TESTONLY', testProduct), 400, 'VALIDATION_ERROR'); // a test product is not in the live catalogue

    expect((await ask('TESTONLY', testProduct, ws.publishableKey)).body.data).toMatchObject({ valid: true });
    expect((await ask('LIVEONLY', testProduct, ws.publishableKey)).body.data).toMatchObject({ valid: false, reason: 'CODE_NOT_FOUND' });
    expect((await ask('LIVEONLY', liveProduct, ws.livePublishableKey)).body.data).toMatchObject({ valid: true });
  });

  it('refuses a key of another workspace (403), an unknown or malformed key (401) and a non-Bearer header (401)', async () => {
    const { ws, liveProduct } = await merchant();
    const other = await t.ctx.createWorkspace();
    const body = { code: 'LIVEONLY', merchantSlug: ws.slug, items: [{ productId: liveProduct, quantity: 1 }] };
    expectError(await http(t.api.baseUrl, 'POST', VALIDATE, { key: other.publishableKey, body }), 403, 'FORBIDDEN');
    expectError(await http(t.api.baseUrl, 'POST', VALIDATE, { key: `pk_test_${'0'.repeat(40)}`, body }), 401, 'INVALID_API_KEY');
    expectError(await http(t.api.baseUrl, 'POST', VALIDATE, { key: 'pk_test_short', body }), 401, 'INVALID_API_KEY');
    expectError(await http(t.api.baseUrl, 'POST', VALIDATE, { headers: { authorization: 'Basic abc' }, body }), 401, 'AUTHENTICATION_REQUIRED');
  });

  it('matches the merchant slug case-insensitively', async () => {
    const { ws, liveProduct } = await merchant();
    const res = await http<{ data: { valid: boolean } }>(t.api.baseUrl, 'POST', VALIDATE, {
      body: { code: 'liveonly', merchantSlug: ws.slug!.toUpperCase(), items: [{ productId: liveProduct, quantity: 1 }] },
    });
    expect(res.body.data.valid).toBe(true);
  });
});

describe('public storefront: validate-discount rate limit', () => {
  it('allows 30 requests per minute per IP and merchant: the 31st is 429 with Retry-After, another merchant is unaffected', async () => {
    const a = await merchant();
    const b = await merchant();
    const ask = (m: typeof a) =>
      http(t.api.baseUrl, 'POST', VALIDATE, { body: { code: 'LIVEONLY', merchantSlug: m.ws.slug, items: [{ productId: m.liveProduct, quantity: 1 }] } });
    for (let i = 0; i < 30; i += 1) {
      const res = await ask(a);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('30');
    }
    const limited = await ask(a);
    expectError(limited, 429, 'RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Invalid bodies naming the merchant count against it too (the limit runs before validation).
    expectError(await http(t.api.baseUrl, 'POST', VALIDATE, { body: { merchantSlug: a.ws.slug } }), 429, 'RATE_LIMITED');
    // Found by the fuzzer: a slug as sent, however long, is counted under its hash (the counter's key is bounded).
    const long = 'x'.repeat(1_000);
    expectError(await http(t.api.baseUrl, 'POST', VALIDATE, { body: { code: 'X', merchantSlug: long, items: [{ productId: a.liveProduct, quantity: 1 }] } }), 400, 'VALIDATION_ERROR');
    expect((await ask(b)).status).toBe(200);
  });
});
