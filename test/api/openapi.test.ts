import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { EVENT_TYPES } from '../../lib/event-types';
import { http, useTestApi } from '../helpers/context';
import { watchDeclaredStatuses } from '../helpers/declared-statuses';

const t = useTestApi();

// Component $refs are resolved by hand where needed; strict mode off for OpenAPI's own keywords (example).
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));

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
        '/v1/payment/webhook-endpoints/{id}/deliveries/{eventId}/retry',
        '/v1/payment/webhook-endpoints/{id}/test',
        '/v1/discount-codes',
        '/v1/discount-codes/{id}',
        '/v1/storefront/public/validate-discount',
        '/v1/account/storefront',
        '/v1/storefront/public/track',
        '/v1/storefront/public/abandoned-cart/unsubscribe',
        '/v1/storefront/public/resolve/{slug}',
        '/v1/storefront/public/order/{deliveryId}',
        '/v1/storefront/public/{merchantSlug}',
        '/v1/storefront/public/{merchantSlug}/discount-codes',
        '/v1/storefront/public/{merchantSlug}/pixels',
        '/v1/storefront/public/{merchantSlug}/r/{code}',
        '/v1/storefront/public/{merchantSlug}/referral/capture',
        '/v1/storefront/public/{merchantSlug}/{productSlug}',
        '/v1/storefront/public/{merchantSlug}/cart-checkout',
        '/v1/storefront/public/{merchantSlug}/{productSlug}/checkout',
        '/v1/referral-links',
        '/v1/referral-links/{id}',
        '/v1/storefront/public/{merchantSlug}/blog',
        '/v1/storefront/public/{merchantSlug}/blog/rss.xml',
        '/v1/storefront/public/{merchantSlug}/blog/{postSlug}',
        '/v1/storefront/public/{merchantSlug}/sitemap',
        '/v1/storefront/public/{merchantSlug}/feeds/google.xml',
        '/v1/storefront/public/{merchantSlug}/feeds/meta.xml',
        '/v1/storefront/public/{merchantSlug}/feeds/tiktok.xml',
        '/v1/blog-posts',
        '/v1/blog-posts/{id}',
        '/v1/storefront/licenses',
        '/v1/storefront/licenses/validate',
        '/v1/storefront/licenses/{key}',
        '/v1/storefront/licenses/{key}/activate',
        '/v1/storefront/licenses/{key}/deactivate',
        '/v1/storefront/deliveries',
        '/v1/storefront/deliveries/{id}',
        '/v1/storefront/public/downloads/{token}',
        '/v1/payment/checkout-sessions',
        '/v1/payment/checkout-sessions/{id}',
        '/v1/payment/checkout-sessions/{id}/refund',
        '/v1/payment/checkout-sessions/{id}/confirm',
        '/v1/payment/checkout-sessions/{id}/public',
        '/v1/payment/checkout-sessions/{id}/pay',
        '/v1/payment/checkout-sessions/{id}/pixel-cookies',
        '/v1/payment/customers',
        '/v1/payment/customers/{id}',
        '/v1/payment/plans',
        '/v1/payment/plans/{id}',
        '/v1/payment/plans/{id}/prices',
        '/v1/payment/plans/prices/{priceId}',
        '/v1/payment/subscriptions',
        '/v1/payment/subscriptions/{id}',
        '/v1/payment/test-clocks',
        '/v1/payment/test-clocks/{id}',
        '/v1/payment/test-clocks/{id}/advance',
        '/v1/inventory/warehouses',
        '/v1/inventory/warehouses/{id}',
        '/v1/inventory/variants',
        '/v1/inventory/variants/{id}',
        '/v1/inventory/stock',
        '/v1/inventory/adjust',
        '/v1/inventory/movements',
        '/v1/inventory/low-stock',
        '/v1/manual-orders',
        '/v1/manual-orders/{id}',
        '/v1/storefront/public/{merchantSlug}/manual-checkout',
        '/v1/storefront/public/{merchantSlug}/order/{number}',
        '/v1/payment/invoices',
        '/v1/payment/invoices/export.csv',
        '/v1/payment/invoices/{id}',
        '/v1/payment/invoices/{id}/pdf',
        '/v1/payment/invoices/{id}/html',
        '/v1/billing/invoices',
        '/v1/billing/invoices/{id}/void',
        '/v1/account/billing',
        '/v1/payouts',
        '/v1/payouts/balance',
        '/v1/payouts/bank-account',
        '/v1/payouts/{id}',
        '/v1/payouts/{id}/cancel',
        '/v1/payouts/{id}/mark-in-transit',
        '/v1/payouts/{id}/mark-paid',
        '/v1/payouts/{id}/mark-failed',
        '/v1/shipping/origin',
        '/v1/shipping/couriers',
        '/v1/shipping/rates',
        '/v1/shipping/shipments',
        '/v1/shipping/shipments/{id}',
        '/v1/shipping/shipments/{id}/cancel',
        '/v1/shipping/shipments/{id}/label',
        '/v1/shipping/labels/{token}',
        '/v1/shipping/track/{waybillId}',
        '/v1/shipping/partner-webhooks',
        '/v1/payment/provider-webhooks',
      ].sort(),
    );
    expect(Object.keys(res.body.paths['/v1/account/api-keys']!).sort()).toEqual(['get', 'post']);
    const create = res.body.components.schemas.CreateApiKeyBody!;
    expect(Object.keys(create.properties!).sort()).toEqual(['access', 'environment', 'name']);
    expect(create.additionalProperties).toBe(false);
  });

  type JsonSchema = Record<string, unknown> & { properties?: Record<string, JsonSchema>; anyOf?: JsonSchema[]; items?: JsonSchema };
  type Operation = {
    parameters?: Array<{ in: string }>;
    requestBody?: { required?: boolean };
    security: unknown[];
    responses: Record<string, { description: string; content?: Record<string, { schema: { $ref?: string } }> }>;
  };
  type Document = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, JsonSchema> } };
  const document = async () => (await http<Document>(t.api.baseUrl, 'GET', '/api/openapi.json')).body;

  it('declares every error status each operation can answer, with the error envelope, and no catch-all default', async () => {
    const doc = await document();
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        const where = `${method.toUpperCase()} ${path}`;
        const statuses = Object.keys(op.responses);
        const expected = ['429', '500'];
        if (op.security.length > 0) expected.push('401', '403');
        if (op.parameters?.some((p) => p.in === 'path')) expected.push('400', '404');
        if (op.requestBody) expected.push('400', '413', '415');
        // Idempotency (409) guards the writes that need a key; a storefront write takes an optional one ({} in security).
        const keyRequired = op.security.length > 0 && !op.security.some((scheme) => Object.keys(scheme as object).length === 0);
        if (method !== 'get' && keyRequired) expected.push('400', '409');
        expect([where, statuses]).toEqual([where, expect.arrayContaining(expected)]);
        expect([where, statuses]).toEqual([where, expect.not.arrayContaining(['default'])]);
        for (const status of statuses.filter((s) => s >= '400')) {
          expect([where, status, op.responses[status]!.content?.['application/json']?.schema.$ref]).toEqual([where, status, '#/components/schemas/ErrorEnvelope']);
        }
        if (op.requestBody) expect([where, op.requestBody.required]).toEqual([where, true]);
      }
    }
    const products = doc.paths['/v1/storefront/products']!;
    expect(products.post!.responses['403']!.description).toContain('QUOTA_EXCEEDED');
    expect(products.get!.responses['409']).toBeUndefined();
    expect(doc.paths['/v1/storefront/products/{id}/files']!.post!.responses['400']!.description).toContain('FILE_TOO_LARGE');
    expect(doc.paths['/v1/payment/webhook-endpoints/{id}']!.delete!.responses['409']!.description).toContain('INVALID_STATE');
    // Every inventory operation names the module refusal; warehouses their own 404 code.
    for (const [path, operations] of Object.entries(doc.paths).filter(([p]) => p.startsWith('/v1/inventory/'))) {
      for (const [method, op] of Object.entries(operations)) expect([method, path, op.responses['409']?.description]).toEqual([method, path, expect.stringContaining('fulfillment_module_disabled')]);
    }
    expect(doc.paths['/v1/inventory/warehouses/{id}']!.patch!.responses['404']!.description).toContain('NOT_FOUND');
  });

  it('declares the licence activation refusals (422) and the cached reads’ 304', async () => {
    const doc = await document();
    expect(doc.paths['/v1/storefront/licenses/{key}/activate']!.post!.responses['422']!.description).toBe('SUBSCRIPTION_INACTIVE, ACTIVATION_LIMIT_REACHED');
    expect(doc.paths['/v1/storefront/public/{merchantSlug}']!.get!.responses['304']).toBeDefined();
    expect(doc.paths['/v1/storefront/products']!.post!.responses['304']).toBeUndefined();
  });

  it('declares the upload’s file part as binary, so generated clients send a Blob', async () => {
    const doc = await document();
    const body = doc.paths['/v1/storefront/products/{id}/files']!.post!.requestBody as unknown as { content: Record<string, { schema: { $ref: string } }> };
    expect(body.content['multipart/form-data']!.schema.$ref).toBe('#/components/schemas/UploadProductFileForm');
    const form = doc.components.schemas.UploadProductFileForm!;
    expect(form.required).toEqual(['file']);
    expect(form.properties!.file).toMatchObject({ type: 'string', format: 'binary', contentMediaType: 'application/octet-stream' });
  });

  it('has a check that fails a test file whose API answered a status its operation does not declare', async () => {
    // A stand-in API: the check sees real responses on a real socket, and only the document's operations.
    const server = createServer((req, res) => {
      res.statusCode = req.url === '/api/v1/things/t1' ? 422 : 200;
      res.end();
    });
    const statuses = watchDeclaredStatuses(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      for (const path of ['/api/v1/things/t1', '/api/v1/things/t2', '/api/v1/things/mine', '/api/v1/unknown', '/api/openapi.json']) await (await fetch(`${base}${path}`)).text();
      await (await fetch(`${base}/api/v1/things/t1`, { method: 'DELETE' })).text();
    } finally {
      server.close();
    }
    const declared = { responses: { 200: {}, 404: {} } };
    const paths = { '/v1/things/{id}': { get: declared }, '/v1/things/mine': { get: { responses: { 200: {} } } } };
    expect(statuses.undeclared({ paths })).toEqual(['GET /v1/things/{id} answered 422 (/v1/things/t1)']);
    expect(statuses.undeclared({ paths: { ...paths, '/v1/things/{id}': { get: { responses: { ...declared.responses, 422: {} } } } } })).toEqual([]);
  });

  it('states the real constraints: PATCH needs a field, webhook url and events, dates, clearable fields, the text rule', async () => {
    const { components } = await document();
    const schemas = components.schemas;
    // Every PATCH body whose fields are all optional says it needs one (the routes refuse an empty body).
    const doc = await document();
    const patchBodies = Object.values(doc.paths)
      .flatMap((operations) => (operations.patch?.requestBody ? [operations.patch.requestBody] : []))
      .map((body) => (body as { content: Record<string, { schema: { $ref: string } }> }).content['application/json']!.schema.$ref.split('/').pop()!)
      .filter((name) => !(schemas[name]!.required as string[] | undefined)?.length);
    expect(patchBodies).toEqual(expect.arrayContaining(['UpdateProductBody', 'UpdatePlanBody', 'UpdatePlanPriceBody', 'UpdateCustomerBody', 'UpdateTestimonialBody']));
    for (const name of patchBodies) expect([name, schemas[name]!.minProperties]).toEqual([name, 1]);
    const webhook = schemas.CreateWebhookEndpointBody!.properties!;
    expect(webhook.url!.pattern).toMatch(/^\^https:\/\//);
    expect(webhook.events!.items!.enum).toEqual([...EVENT_TYPES]);
    expect(schemas.Product!.properties!.createdAt!.format).toBe('date-time');
    expect(schemas.PortfolioItem!.properties!.completedAt!.format).toBe('date-time');
    expect(schemas.CreateCertificationBody!.properties!.issuedAt!.anyOf!.map((s) => s.format)).toEqual(expect.arrayContaining(['date-time', 'date']));
    // "" clears these: the schema must accept it rather than claim minLength 1.
    const accepts = (schema: JsonSchema, value: unknown) => ajv.compile(schema)(value);
    for (const [body, field] of [
      ['CreatePortfolioItemBody', 'externalUrl'],
      ['CreatePortfolioItemBody', 'clientName'],
      ['CreateTestimonialBody', 'authorRole'],
    ] as const) {
      const schema = schemas[body]!.properties![field]!;
      expect([field, accepts(schema, ''), accepts(schema, null)]).toEqual([field, true, true]);
    }
    const name = schemas.CreateProductBody!.properties!.name!;
    expect([accepts(name, 'Mug'), accepts(name, '  Mug \n'), accepts(name, 'a\u0000b'), accepts(name, 'a\nb'), accepts(name, 'a\u202Eb'), accepts(name, '   ')]).toEqual([
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
    const metadata = schemas.CreateProductBody!.properties!.metadata!;
    expect([accepts(metadata, { sku: 'a\nb' }), accepts(metadata, JSON.parse('{"__proto__":"x"}')), accepts(metadata, { 'a\u0000': 'x' })]).toEqual([true, false, false]);
  });

  it('is valid JSON Schema 2020-12 throughout (every pattern compiles as a Unicode regex)', async () => {
    const { components } = await document();
    for (const [name, schema] of Object.entries(components.schemas)) {
      expect([name, ajv.validateSchema(schema)]).toEqual([name, true]);
    }
  });

  it('serves an interactive reference page at /api/docs', async () => {
    const res = await http(t.api.baseUrl, 'GET', '/api/docs/');
    expect(res.status).toBe(200);
    expect(res.text).toContain('swagger-ui');
  });
});
