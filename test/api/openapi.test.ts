import { http, useTestApi } from '../helpers/context';

const t = useTestApi();

describe('OpenAPI', () => {
  it('serves a 3.1 document generated from the validating schemas', async () => {
    const res = await http<{ openapi: string; paths: Record<string, Record<string, { requestBody?: unknown }>>; components: { schemas: Record<string, { properties?: Record<string, unknown>; additionalProperties?: unknown }> } }>(
      t.api.baseUrl,
      'GET',
      '/api/openapi.json',
    );
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    // Every route the API serves is documented: a new route must be added here and to the document together.
    expect(Object.keys(res.body.paths).sort()).toEqual(
      [
        '/v1/account/api-keys',
        '/v1/account/api-keys/{id}',
        '/v1/modules',
        '/v1/storefront/products',
        '/v1/storefront/products/{id}',
        '/v1/storefront/products/{id}/ai-generate',
        '/v1/storefront/products/{id}/files',
        '/v1/storefront/products/{id}/files/{fileId}',
        '/v1/portfolio',
        '/v1/portfolio/{id}',
        '/v1/testimonials',
        '/v1/testimonials/{id}',
        '/v1/certifications',
        '/v1/certifications/{id}',
        '/v1/payment/webhook-endpoints',
        '/v1/payment/webhook-endpoints/{id}',
        '/v1/payment/webhook-endpoints/{id}/deliveries',
        '/v1/payment/webhook-endpoints/{id}/test',
        '/v1/discount-codes',
        '/v1/discount-codes/{id}',
        '/v1/storefront/public/validate-discount',
        '/v1/account/storefront',
        '/v1/storefront/public/track',
        '/v1/storefront/public/abandoned-cart/unsubscribe',
        '/v1/storefront/public/resolve/{slug}',
        '/v1/storefront/public/{merchantSlug}',
        '/v1/storefront/public/{merchantSlug}/discount-codes',
        '/v1/storefront/public/{merchantSlug}/pixels',
        '/v1/storefront/public/{merchantSlug}/r/{code}',
        '/v1/storefront/public/{merchantSlug}/referral/capture',
        '/v1/storefront/public/{merchantSlug}/{productSlug}',
        '/v1/referral-links',
        '/v1/referral-links/{id}',
        '/v1/storefront/licenses',
        '/v1/storefront/licenses/validate',
        '/v1/storefront/licenses/{key}',
        '/v1/storefront/licenses/{key}/activate',
        '/v1/storefront/licenses/{key}/deactivate',
      ].sort(),
    );
    expect(Object.keys(res.body.paths['/v1/account/api-keys']!).sort()).toEqual(['get', 'post']);
    const create = res.body.components.schemas.CreateApiKeyBody!;
    expect(Object.keys(create.properties!).sort()).toEqual(['access', 'environment', 'name']);
    expect(create.additionalProperties).toBe(false);
  });

  it('serves an interactive reference page at /api/docs', async () => {
    const res = await http(t.api.baseUrl, 'GET', '/api/docs/');
    expect(res.status).toBe(200);
    expect(res.text).toContain('swagger-ui');
  });
});
