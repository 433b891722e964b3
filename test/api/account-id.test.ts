import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { recordAttempt } from '../../domain/webhooks/deliveries';
import { http, useTestApi } from '../helpers/context';
import { RESOURCES } from '../helpers/credibility';
import { insertDelivery } from '../fixtures/deliveries';
import { fundAvailable } from '../fixtures/payouts';
import { insertShipment } from '../fixtures/shipping';
import { issueLicense } from '../../domain/licenses/issue';

/**
 * Document 1: "Every record belongs to one workspace (field `accountId`)". Driven by the OpenAPI document,
 * so a route added later is held to it without touching this file.
 */

const t = useTestApi();

type Schema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
};
type Operation = { security?: object[]; responses: Record<string, { content?: Record<string, { schema: Schema }> }> };

/**
 * Routes a buyer may call without a key (the public storefront, licence checks) answer buyer-safe payloads that
 * leave the workspace id out on purpose (docs/decisions/storefront.md); every other route is a merchant's.
 */
const merchantOperation = (operation: Operation | undefined): operation is Operation =>
  operation !== undefined && (operation.security ?? []).length > 0 && !(operation.security ?? []).some((s) => Object.keys(s).length === 0);
type OpenApiDocument = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Every object schema reachable from `root` (through $ref, properties, items and combinators) that has an `id`. */
function resourceSchemas(document: OpenApiDocument, root: Schema): Array<{ name: string; schema: Schema }> {
  const found: Array<{ name: string; schema: Schema }> = [];
  const seen = new Set<Schema>();
  const walk = (schema: Schema | undefined, name: string) => {
    if (!schema || seen.has(schema)) return;
    seen.add(schema);
    if (schema.$ref) {
      const component = schema.$ref.replace('#/components/schemas/', '');
      walk(document.components.schemas[component], component);
      return;
    }
    if (schema.properties?.id) found.push({ name, schema });
    for (const [key, property] of Object.entries(schema.properties ?? {})) walk(property, `${name}.${key}`);
    walk(schema.items, `${name}[]`);
    for (const part of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) walk(part, name);
  };
  walk(root, '(inline)');
  return found;
}

/** `METHOD path → schema` for every success response schema whose resource objects do not require accountId. */
function missingAccountId(document: OpenApiDocument): string[] {
  const problems: string[] = [];
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = operations[method];
      if (!merchantOperation(operation)) continue;
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!status.startsWith('2')) continue;
        for (const { schema } of Object.values(response.content ?? {})) {
          for (const resource of resourceSchemas(document, schema)) {
            if (!resource.schema.properties?.accountId || !resource.schema.required?.includes('accountId')) {
              problems.push(`${method.toUpperCase()} ${path} → ${resource.name}`);
            }
          }
        }
      }
    }
  }
  return problems;
}

async function openApiDocument(): Promise<OpenApiDocument> {
  const res = await http<OpenApiDocument>(t.api.baseUrl, 'GET', '/api/openapi.json');
  expect(res.status).toBe(200);
  return res.body;
}

/** Every object carrying an `id`, at any depth of `value`. */
function objectsWithId(value: unknown): Array<Record<string, unknown>> {
  if (Array.isArray(value)) return value.flatMap(objectsWithId);
  if (value === null || typeof value !== 'object') return [];
  const object = value as Record<string, unknown>;
  return [...('id' in object ? [object] : []), ...Object.values(object).flatMap(objectsWithId)];
}

describe('accountId on every resource object', () => {
  it('every success response schema requires accountId on each object with an id', async () => {
    const document = await openApiDocument();
    expect(missingAccountId(document)).toEqual([]);
    // The walk reaches the resources, nested ones included (a product's files).
    const names = new Set(
      Object.values(document.paths).flatMap((ops) =>
        Object.values(ops).flatMap((op) => Object.values(op.responses['200']?.content ?? {}).flatMap((c) => resourceSchemas(document, c.schema).map((r) => r.name))),
      ),
    );
    expect([...names]).toEqual(expect.arrayContaining(['ApiKey', 'Product', 'ProductFile', 'WebhookEndpoint', 'WebhookDeliveryAttempt', 'PortfolioItem', 'Delivery', 'Invoice']));
    expect([...names]).toEqual(expect.arrayContaining(['ApiKey', 'Product', 'ProductFile', 'WebhookEndpoint', 'WebhookDeliveryAttempt', 'PortfolioItem', 'Delivery', 'Payout']));
  });

  it('the check fails for a resource schema without accountId', async () => {
    const document = await openApiDocument();
    const withoutAccountId: OpenApiDocument = {
      ...document,
      components: { schemas: { ...document.components.schemas, Widget: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } } },
      paths: {
        ...document.paths,
        '/v1/widgets': {
          get: { security: [{ apiKey: [] }], responses: { '200': { content: { 'application/json': { schema: { type: 'object', properties: { data: { type: 'array', items: { $ref: '#/components/schemas/Widget' } } } } } } } } },
        },
      },
    };
    expect(missingAccountId(withoutAccountId)).toEqual(['GET /v1/widgets → Widget']);
  });

  it("every GET route answers accountId = the caller's workspace on each object, with one of each resource created through the API", async () => {
    const ws = await t.ctx.createWorkspace();
    const key = ws.secretKey;
    const created = new Set<unknown>();
    const post = async (path: string, body: unknown) => {
      const res = await http<{ data: Record<string, unknown> }>(t.api.baseUrl, 'POST', path, { key, body });
      expect([200, 201]).toContain(res.status);
      for (const object of objectsWithId(res.body.data)) created.add(object.id);
      return res.body.data;
    };
    const product = await post('/api/v1/storefront/products', { name: 'Ebook', price: 10, currency: 'USD', type: 'digital', published: true });
    await post(`/api/v1/storefront/products/${String(product.id)}/files`, { fileName: 'book.pdf', fileSize: 1000, mimeType: 'application/pdf' });
    for (const resource of RESOURCES) await post(resource.path, resource.minimal);
    await post('/api/v1/discount-codes', { code: 'ACCOUNTID', type: 'percent', value: 5, currency: 'USD' });
    await post('/api/v1/referral-links', { code: 'accountid' });
    await post('/api/v1/blog-posts', { title: 'A post' });
    const customer = await post('/api/v1/payment/customers', { email: 'accountid@example.com', name: 'Account Id' });
    const plan = await post('/api/v1/payment/plans', { name: 'Monthly', amount: 50_000, currency: 'IDR', interval: 'monthly' });
    await post('/api/v1/payment/test-clocks', { frozenTime: '2025-01-01T00:00:00Z', name: 'Account Id' });
    // Subscription create requires an Idempotency-Key (document 2).
    const subscription = await http<{ data: Record<string, unknown> }>(t.api.baseUrl, 'POST', '/api/v1/payment/subscriptions', {
      key,
      body: { customerId: customer.id, planId: plan.id },
      headers: { 'idempotency-key': `account-id-${ws.accountId}` },
    });
    expect(subscription.status).toBe(201);
    for (const object of objectsWithId(subscription.body.data)) created.add(object.id);
    await post('/api/v1/modules', { module: 'fulfillment', enabled: true });
    const warehouse = await post('/api/v1/inventory/warehouses', { name: 'Main' });
    const mug = await post('/api/v1/storefront/products', { name: 'Mug', price: 10, currency: 'USD', type: 'physical', weight: 300, published: true });
    const variant = await post('/api/v1/inventory/variants', { productId: mug.id, name: 'Blue' });
    await post('/api/v1/inventory/adjust', { variantId: variant.id, warehouseId: warehouse.id, delta: 5, reason: 'initial_stock' });
    // No merchant route creates a manual order: the public manual checkout does (in the test environment with the pk_test key).
    const order = await http<{ data: { id: string } }>(t.api.baseUrl, 'POST', `/api/v1/storefront/public/${ws.slug}/manual-checkout`, {
      key: ws.publishableKey,
      body: { email: 'buyer@example.test', productId: product.id },
    });
    expect(order.status).toBe(201);
    created.add(order.body.data.id);
    await post('/api/v1/billing/invoices', { customerId: customer.id, currency: 'IDR', lineItems: [{ description: 'Setup', quantity: 1, unitAmount: 100_000 }] });
    expect((await http(t.api.baseUrl, 'PATCH', '/api/v1/shipping/origin', { key, body: { address: 'Jl. Gatot Subroto 12', contactName: 'Gudang', contactPhone: '021 555' } })).status).toBe(200);
    // No API creates a shipment; checkout completion does, through this same function.
    created.add(await insertShipment(t.ctx.sequelize, ws));
    // No API creates a licence; checkout fulfillment issues one through this same function.
    await t.ctx.sequelize.transaction((tx) => issueLicense(tx, { accountId: ws.accountId, environment: 'test' }, { productId: String(product.id) }));
    // No API creates a delivery either; fulfillment writes the row.
    created.add((await insertDelivery(t.ctx.sequelize, ws, String(product.id), { session: null })).id);
    await post('/api/v1/payment/checkout-sessions', { amount: 1000, currency: 'USD', description: 'Ebook', customerEmail: 'buyer@example.com', productId: product.id });
    // A payout needs money that has settled (fulfillment credits it; the fixture settles it at once) and a bank account.
    await fundAvailable(t.ctx.sequelize, ws, 5_000);
    const bank = await http<{ data: { accountId: string } }>(t.api.baseUrl, 'PATCH', '/api/v1/payouts/bank-account', {
      key,
      body: { bankName: 'Bank', bankAccountNumber: '123', bankAccountHolder: 'Holder' },
    });
    expect(bank.body.data.accountId).toBe(ws.accountId);
    await post('/api/v1/payouts', { amount: 1_000, currency: 'USD' });
    const balances = await http<{ data: Array<{ accountId: string }> }>(t.api.baseUrl, 'GET', '/api/v1/payouts/balance', { key });
    expect(balances.body.data.map((b) => b.accountId)).toEqual([ws.accountId]);
    const endpoint = await post('/api/v1/payment/webhook-endpoints', { url: 'https://hooks.example.com/commerce' });
    // No API creates a delivery attempt; the delivery activity records one through this same function.
    await recordAttempt(t.ctx.sequelize, {
      accountId: ws.accountId,
      environment: 'test',
      endpointId: String(endpoint.id),
      eventId: 'evt_test_accountid',
      eventType: 'service.product.created.v1',
      attemptKey: randomUUID(),
      attempt: 1,
      deliveryId: randomUUID(),
      url: String(endpoint.url),
      ok: true,
      statusCode: 200,
      durationMs: 5,
      error: null,
      scheduledAt: new Date(),
      retryDelayMs: null,
    });

    const document = await openApiDocument();
    /**
     * A path parameter's value: an id the collection before it lists (`/products/{id}` → GET /products), one
     * created above when there is one (the workspace's system webhook endpoints have no deliveries).
     */
    const resolve = async (path: string): Promise<string> => {
      let resolved = '';
      for (const segment of path.split('/').slice(1)) {
        if (segment.startsWith('{')) {
          const res = await http<{ data: unknown }>(t.api.baseUrl, 'GET', `/api${resolved}`, { key });
          const listed = objectsWithId(res.body.data);
          const first = listed.find((o) => created.has(o.id)) ?? listed[0];
          if (!first) throw new Error(`GET /api${resolved} lists nothing to fill ${segment} of ${path}: create one above`);
          // Licences are addressed by their key, everything else by id.
          resolved += `/${String(segment === '{key}' ? first.key : first.id)}`;
        } else {
          resolved += `/${segment}`;
        }
      }
      return resolved;
    };

    const checked: string[] = [];
    for (const [path, operations] of Object.entries(document.paths)) {
      const get = operations.get;
      if (!merchantOperation(get)) continue;
      const schema = get.responses['200']?.content?.['application/json']?.schema;
      if (!schema || resourceSchemas(document, schema).length === 0) continue;
      const url = `/api${await resolve(path)}`;
      // Secret-key reads, and the publishable-key (buyer-facing) reads of the routes that allow them.
      for (const caller of [ws.secretKey, ws.publishableKey]) {
        const res = await http<{ data: unknown }>(t.api.baseUrl, 'GET', url, { key: caller });
        if (caller === ws.publishableKey && res.status === 403) continue;
        expect({ url, status: res.status }).toEqual({ url, status: 200 });
        const objects = objectsWithId(res.body.data);
        expect({ url, objects: objects.length > 0 }).toEqual({ url, objects: true });
        for (const object of objects) expect({ url, id: object.id, accountId: object.accountId }).toEqual({ url, id: object.id, accountId: ws.accountId });
        checked.push(`${caller === key ? 'sk' : 'pk'} GET ${path}`);
      }
    }
    expect(checked).toEqual(
      expect.arrayContaining([
        'sk GET /v1/storefront/products/{id}',
        'pk GET /v1/storefront/products',
        'sk GET /v1/payment/webhook-endpoints/{id}/deliveries',
        'sk GET /v1/storefront/deliveries',
        'sk GET /v1/storefront/deliveries/{id}',
        'sk GET /v1/payment/checkout-sessions/{id}',
        'sk GET /v1/inventory/warehouses/{id}',
        'sk GET /v1/inventory/variants/{id}',
        'sk GET /v1/inventory/movements',
        'sk GET /v1/payouts',
        'sk GET /v1/payouts/{id}',
        'sk GET /v1/shipping/shipments',
        'sk GET /v1/shipping/shipments/{id}',
      ]),
    );

    // Webhook payloads: product events carry the same DTO.
    const events = await t.ctx.sequelize.query<{ data: { accountId?: string } }>(
      'SELECT data FROM events WHERE account_id = :accountId AND type LIKE :type',
      { replacements: { accountId: ws.accountId, type: 'service.product.%' }, type: QueryTypes.SELECT },
    );
    expect(events.length).toBeGreaterThanOrEqual(2);
    for (const event of events) expect(event.data.accountId).toBe(ws.accountId);
  });
});
