import { http, useTestApi } from '../helpers/context';
import { insertProduct } from '../fixtures/products';
import { CERTIFICATIONS, countRows, PORTFOLIO, storedRow, TESTIMONIALS, type CredibilityCase } from '../helpers/credibility';
import { expectError } from '../helpers/expect';

// productId on portfolio items and testimonials: only the caller's own live products may be linked, PATCH
// keeps or clears the link, and a deleted (archived) product reads as productId null.

const t = useTestApi();

type Envelope = { data: Record<string, Record<string, unknown>>; error: unknown };

describe.each([PORTFOLIO, TESTIMONIALS])('$name productId', (r: CredibilityCase) => {
  async function create(key: string, body: Record<string, unknown>) {
    const res = await http<Envelope>(t.api.baseUrl, 'POST', r.path, { key, body: { ...r.minimal, ...body } });
    expect(res.status).toBe(201);
    return res.body.data[r.single]!;
  }
  const get = async (key: string, id: string) => (await http<Envelope>(t.api.baseUrl, 'GET', `${r.path}/${id}`, { key })).body.data[r.single]!;
  const patch = (key: string, id: string, body: Record<string, unknown>) => http<Envelope>(t.api.baseUrl, 'PATCH', `${r.path}/${id}`, { key, body });
  const storedLink = async (id: string) => (await storedRow(t.ctx.sequelize, r.table, id))!.product_id;

  it('links to one of the workspace’s products; PATCH without productId keeps the link, another id moves it, null clears it', async () => {
    const ws = await t.ctx.createWorkspace();
    const first = await insertProduct(t.ctx.sequelize, ws);
    const second = await insertProduct(t.ctx.sequelize, ws);
    const record = await create(ws.secretKey, { productId: first });
    const id = record.id as string;
    expect(record.productId).toBe(first);
    expect(await storedLink(id)).toBe(first);

    const kept = await patch(ws.secretKey, id, r.change);
    expect(kept.status).toBe(200);
    expect(kept.body.data[r.single]!.productId).toBe(first);
    expect(await storedLink(id)).toBe(first);

    expect((await patch(ws.secretKey, id, { productId: second })).body.data[r.single]!.productId).toBe(second);
    expect(await storedLink(id)).toBe(second);

    const cleared = await patch(ws.secretKey, id, { productId: null });
    expect(cleared.body.data[r.single]!.productId).toBeNull();
    expect(await storedLink(id)).toBeNull();
    expect((await get(ws.secretKey, id)).productId).toBeNull();
  });

  it.each([
    ['another workspace’s product', async () => insertProduct(t.ctx.sequelize, await t.ctx.createWorkspace())],
    ['a product id that does not exist', async () => 'prod_01JD4X7V1QZ8N6Y3K2M5P9R0TS'],
    ['a malformed id', async () => 'not-a-product'],
    ['an empty string', async () => ''],
    ['a number', async () => 42],
  ])('refuses %s with 400 VALIDATION_ERROR on create and PATCH, writing nothing', async (_label, productOf) => {
    const ws = await t.ctx.createWorkspace();
    const productId = await productOf();
    const linked = await insertProduct(t.ctx.sequelize, ws);
    const record = await create(ws.secretKey, { productId: linked });
    const before = await storedRow(t.ctx.sequelize, r.table, record.id as string);

    const post = await http(t.api.baseUrl, 'POST', r.path, { key: ws.secretKey, body: { ...r.minimal, productId } });
    expectError(post, 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(post.body.error)).toContain('productId');
    const patched = await patch(ws.secretKey, record.id as string, { ...r.change, productId });
    expectError(patched, 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(patched.body.error)).toContain('productId');

    expect(await countRows(t.ctx.sequelize, r.table, ws.accountId)).toBe(1);
    expect(await storedRow(t.ctx.sequelize, r.table, record.id as string)).toEqual(before);
  });

  it('refuses the workspace’s own product from the other environment, and an archived product, writing nothing', async () => {
    const ws = await t.ctx.createWorkspace();
    const liveProduct = await insertProduct(t.ctx.sequelize, { accountId: ws.accountId, environment: 'live' });
    const archived = await insertProduct(t.ctx.sequelize, ws, { archived: true });
    const record = await create(ws.secretKey, {});
    const before = await storedRow(t.ctx.sequelize, r.table, record.id as string);
    for (const productId of [liveProduct, archived]) {
      expectError(await http(t.api.baseUrl, 'POST', r.path, { key: ws.secretKey, body: { ...r.minimal, productId } }), 400, 'VALIDATION_ERROR');
      expectError(await patch(ws.secretKey, record.id as string, { productId }), 400, 'VALIDATION_ERROR');
    }
    expect(await countRows(t.ctx.sequelize, r.table, ws.accountId)).toBe(1);
    expect(await storedRow(t.ctx.sequelize, r.table, record.id as string)).toEqual(before);
    // The live key may link the live product.
    expect((await create(ws.liveSecretKey, { productId: liveProduct })).productId).toBe(liveProduct);
  });

  it('answers 404, not 400, for a foreign record even when the productId is bad too', async () => {
    const owner = await t.ctx.createWorkspace();
    const other = await t.ctx.createWorkspace();
    const record = await create(owner.secretKey, {});
    const before = await storedRow(t.ctx.sequelize, r.table, record.id as string);
    expectError(await patch(other.secretKey, record.id as string, { productId: 'prod_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }), 404, 'RESOURCE_NOT_FOUND');
    expect(await storedRow(t.ctx.sequelize, r.table, record.id as string)).toEqual(before);
  });

  it('reads productId as null once the product is deleted (archived), keeps the record, and restores it if unarchived', async () => {
    const ws = await t.ctx.createWorkspace();
    const product = await insertProduct(t.ctx.sequelize, ws);
    const record = await create(ws.secretKey, { productId: product });
    const id = record.id as string;
    await t.ctx.sequelize.query('UPDATE products SET archived = true WHERE id = :product', { replacements: { product } });

    expect(await get(ws.secretKey, id)).toEqual({ ...record, productId: null });
    const listed = (await http<{ data: Record<string, Array<Record<string, unknown>>> }>(t.api.baseUrl, 'GET', r.path, { key: ws.secretKey })).body.data[r.list]!;
    expect(listed).toEqual([{ ...record, productId: null }]);
    const edited = await patch(ws.secretKey, id, r.change);
    expect(edited.body.data[r.single]!.productId).toBeNull();
    // The stored link is kept, so the archival is reversible.
    expect(await storedLink(id)).toBe(product);
    await t.ctx.sequelize.query('UPDATE products SET archived = false WHERE id = :product', { replacements: { product } });
    expect((await get(ws.secretKey, id)).productId).toBe(product);
  });

  it('nulls the stored link when a product row is removed outright, keeping the record', async () => {
    const ws = await t.ctx.createWorkspace();
    const product = await insertProduct(t.ctx.sequelize, ws);
    const record = await create(ws.secretKey, { productId: product });
    await t.ctx.sequelize.query('DELETE FROM products WHERE id = :product', { replacements: { product } });
    expect(await storedLink(record.id as string)).toBeNull();
    expect(await get(ws.secretKey, record.id as string)).toEqual({ ...record, productId: null });
  });
});

describe('certifications', () => {
  it('have no productId: sending one is an unknown field, writing nothing', async () => {
    const ws = await t.ctx.createWorkspace();
    const product = await insertProduct(t.ctx.sequelize, ws);
    const res = await http(t.api.baseUrl, 'POST', CERTIFICATIONS.path, { key: ws.secretKey, body: { ...CERTIFICATIONS.minimal, productId: product } });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(res.body.error)).toContain('productId');
    expect(await countRows(t.ctx.sequelize, CERTIFICATIONS.table, ws.accountId)).toBe(0);
  });
});
