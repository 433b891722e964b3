import { http, useTestApi } from '../helpers/context';
import { countRows, storedRow } from '../helpers/credibility';
import { expectError } from '../helpers/expect';

// The merchant's blog posts (/v1/blog-posts): docs/decisions/storefront.md, "Blog".

const t = useTestApi();
const PATH = '/api/v1/blog-posts';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

type Post = Record<string, unknown> & { id: string; slug: string };
type Envelope = { data: { post: Post; posts: Post[] } };

async function create(key: string, body: Record<string, unknown>): Promise<Post> {
  const res = await http<Envelope>(t.api.baseUrl, 'POST', PATH, { key, body });
  expect(res.status).toBe(201);
  return res.body.data.post;
}

async function list(key: string): Promise<Post[]> {
  const res = await http<Envelope>(t.api.baseUrl, 'GET', PATH, { key });
  expect(res.status).toBe(200);
  return res.body.data.posts;
}

describe('blog posts', () => {
  it('creates a draft with the defaults and a slug derived from the title, answering under data.post', async () => {
    const ws = await t.ctx.createWorkspace();
    const res = await http<Envelope>(t.api.baseUrl, 'POST', PATH, { key: ws.secretKey, body: { title: '  Café Batik: 10 motifs! ' } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body.data)).toEqual(['post']);
    expect(res.body.data.post).toEqual({
      id: expect.stringMatching(/^post_[0-9A-Z]{26}$/),
      accountId: ws.accountId,
      title: 'Café Batik: 10 motifs!',
      slug: 'cafe-batik-10-motifs',
      body: '',
      excerpt: null,
      coverImage: null,
      published: false,
      publishedAt: null,
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
    expect(await storedRow(t.ctx.sequelize, 'blog_posts', res.body.data.post.id)).toMatchObject({ account_id: ws.accountId, environment: 'test' });
    const got = await http<Envelope>(t.api.baseUrl, 'GET', `${PATH}/${res.body.data.post.id}`, { key: ws.secretKey });
    expect(got.body.data).toEqual({ post: res.body.data.post });
    expect((await create(ws.secretKey, { title: '!!' })).slug).toBe('post');
  });

  it('stamps publishedAt when a post is published without one, and keeps a given one', async () => {
    const ws = await t.ctx.createWorkspace();
    const before = Date.now();
    const now = await create(ws.secretKey, { title: 'Now', published: true, body: '# Hello\n\n  indented', excerpt: 'Short.', coverImage: 'https://cdn.example.com/a.png' });
    expect(Date.parse(now.publishedAt as string)).toBeGreaterThanOrEqual(before - 1000);
    expect(now).toMatchObject({ published: true, body: '# Hello\n\n  indented', excerpt: 'Short.', coverImage: 'https://cdn.example.com/a.png' });
    const dated = await create(ws.secretKey, { title: 'Dated', published: true, publishedAt: '2024-05-31T09:30:00+07:00' });
    expect(dated.publishedAt).toBe('2024-05-31T02:30:00.000Z');
    const scheduledDraft = await create(ws.secretKey, { title: 'Later', publishedAt: '2030-01-01' });
    expect(scheduledDraft).toMatchObject({ published: false, publishedAt: '2030-01-01T00:00:00.000Z' });
  });

  it('PATCH publishes a draft once: the first publication is stamped, unpublishing and republishing keep it', async () => {
    const ws = await t.ctx.createWorkspace();
    const draft = await create(ws.secretKey, { title: 'Draft' });
    const patch = (body: Record<string, unknown>) => http<Envelope>(t.api.baseUrl, 'PATCH', `${PATH}/${draft.id}`, { key: ws.secretKey, body });
    const published = (await patch({ published: true })).body.data.post;
    expect(published.publishedAt).toMatch(ISO);
    expect(Date.parse(published.updatedAt as string)).toBeGreaterThanOrEqual(Date.parse(draft.updatedAt as string));
    const unpublished = (await patch({ published: false })).body.data.post;
    expect(unpublished).toMatchObject({ published: false, publishedAt: published.publishedAt });
    expect((await patch({ published: true })).body.data.post.publishedAt).toBe(published.publishedAt);
    expect((await patch({ publishedAt: '2023-01-02T03:04:05Z' })).body.data.post.publishedAt).toBe('2023-01-02T03:04:05.000Z');
  });

  it('PATCH changes only the fields sent; excerpt clears with "" or null, coverImage with null', async () => {
    const ws = await t.ctx.createWorkspace();
    const post = await create(ws.secretKey, { title: 'T', excerpt: 'E', coverImage: 'http://img.example.com/a.jpg', body: 'B' });
    const res = await http<Envelope>(t.api.baseUrl, 'PATCH', `${PATH}/${post.id}`, { key: ws.secretKey, body: { excerpt: '', coverImage: null, slug: 'renamed' } });
    expect(res.status).toBe(200);
    expect(res.body.data.post).toEqual({ ...post, excerpt: null, coverImage: null, slug: 'renamed', updatedAt: expect.stringMatching(ISO) });
    const again = await http<Envelope>(t.api.baseUrl, 'PATCH', `${PATH}/${post.id}`, { key: ws.secretKey, body: { excerpt: 'New', title: 'T2' } });
    expect(again.body.data.post).toMatchObject({ excerpt: 'New', title: 'T2', body: 'B', slug: 'renamed' });
    const cleared = await http<Envelope>(t.api.baseUrl, 'PATCH', `${PATH}/${post.id}`, { key: ws.secretKey, body: { excerpt: null } });
    expect(cleared.body.data.post.excerpt).toBeNull();
  });

  it('suffixes a derived slug that is taken, refuses a given one that is taken, and scopes slugs per workspace and environment', async () => {
    const ws = await t.ctx.createWorkspace();
    const other = await t.ctx.createWorkspace();
    const first = await create(ws.secretKey, { title: 'Spring sale' });
    const second = await create(ws.secretKey, { title: 'Spring sale' });
    expect(first.slug).toBe('spring-sale');
    expect(second.slug).toMatch(/^spring-sale-[0-9a-z]+$/);
    expect((await create(ws.liveSecretKey, { title: 'Spring sale' })).slug).toBe('spring-sale');
    expect((await create(other.secretKey, { title: 'x', slug: 'spring-sale' })).slug).toBe('spring-sale');

    const taken = await http(t.api.baseUrl, 'POST', PATH, { key: ws.secretKey, body: { title: 'Other', slug: 'spring-sale' } });
    expectError(taken, 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(taken.body.error)).toContain('slug');
    const before = await storedRow(t.ctx.sequelize, 'blog_posts', second.id);
    expectError(await http(t.api.baseUrl, 'PATCH', `${PATH}/${second.id}`, { key: ws.secretKey, body: { slug: 'spring-sale', title: 'Changed' } }), 400, 'VALIDATION_ERROR');
    expect(await storedRow(t.ctx.sequelize, 'blog_posts', second.id)).toEqual(before);
    expect((await list(ws.secretKey)).length).toBe(2);
  });

  it.each([
    ['an empty title', { title: '   ' }],
    ['a title over 200 characters', { title: 'x'.repeat(201) }],
    ['a title with a line break', { title: 'a\nb' }],
    ['a one-character slug', { title: 'T', slug: 'a' }],
    ['a slug over 80 characters', { title: 'T', slug: 'a'.repeat(81) }],
    ['a slug with capitals', { title: 'T', slug: 'Hello' }],
    ['a slug with a space', { title: 'T', slug: 'a b' }],
    ['a body over 50,000 characters', { title: 'T', body: 'x'.repeat(50_001) }],
    ['a body with NUL', { title: 'T', body: 'a\u0000b' }],
    ['an excerpt over 500 characters', { title: 'T', excerpt: 'x'.repeat(501) }],
    ['a javascript: cover image', { title: 'T', coverImage: 'javascript:alert(1)' }],
    ['a data: cover image', { title: 'T', coverImage: 'data:image/png;base64,AAAA' }],
    ['a relative cover image', { title: 'T', coverImage: '/a.png' }],
    ['an empty cover image', { title: 'T', coverImage: '' }],
    ['published as a string', { title: 'T', published: 'true' }],
    ['an impossible publishedAt', { title: 'T', publishedAt: '2023-02-30' }],
    ['a null publishedAt', { title: 'T', publishedAt: null }],
    ['an unknown field', { title: 'T', tags: ['x'] }],
    ['a server-managed field', { title: 'T', accountId: 'acc_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }],
  ])('refuses %s on create and PATCH, writing nothing', async (_label, body) => {
    const ws = await t.ctx.createWorkspace();
    expectError(await http(t.api.baseUrl, 'POST', PATH, { key: ws.secretKey, body }), 400, 'VALIDATION_ERROR');
    expect(await countRows(t.ctx.sequelize, 'blog_posts', ws.accountId)).toBe(0);
    const post = await create(ws.secretKey, { title: 'Kept' });
    const before = await storedRow(t.ctx.sequelize, 'blog_posts', post.id);
    // The title is only part of the refused body when it is the bad field.
    const { title, ...rest } = body as Record<string, unknown>;
    const patchBody = Object.keys(rest).length > 0 ? rest : { title };
    expectError(await http(t.api.baseUrl, 'PATCH', `${PATH}/${post.id}`, { key: ws.secretKey, body: patchBody }), 400, 'VALIDATION_ERROR');
    expect(await storedRow(t.ctx.sequelize, 'blog_posts', post.id)).toEqual(before);
  });

  it('suffixes a taken derived slug under an Idempotency-Key too (the request runs in one transaction), and replays that post', async () => {
    const ws = await t.ctx.createWorkspace();
    await create(ws.secretKey, { title: 'Winter sale' });
    const headers = { 'idempotency-key': `winter-${ws.accountId}` };
    const first = await http<Envelope>(t.api.baseUrl, 'POST', PATH, { key: ws.secretKey, body: { title: 'Winter sale' }, headers });
    expect(first.status).toBe(201);
    expect(first.body.data.post.slug).toMatch(/^winter-sale-[0-9a-z]+$/);
    const again = await http<Envelope>(t.api.baseUrl, 'POST', PATH, { key: ws.secretKey, body: { title: 'Winter sale' }, headers });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data.post.id).toBe(first.body.data.post.id);
    expect(await list(ws.secretKey)).toHaveLength(2);
  });

  it('refuses a create without a title, writing nothing', async () => {
    const ws = await t.ctx.createWorkspace();
    expectError(await http(t.api.baseUrl, 'POST', PATH, { key: ws.secretKey, body: { body: 'x' } }), 400, 'VALIDATION_ERROR');
    expect(await countRows(t.ctx.sequelize, 'blog_posts', ws.accountId)).toBe(0);
  });

  it('refuses a PATCH with no fields, writing nothing', async () => {
    const ws = await t.ctx.createWorkspace();
    const post = await create(ws.secretKey, { title: 'T' });
    const before = await storedRow(t.ctx.sequelize, 'blog_posts', post.id);
    expectError(await http(t.api.baseUrl, 'PATCH', `${PATH}/${post.id}`, { key: ws.secretKey, body: {} }), 400, 'VALIDATION_ERROR');
    expectError(await http(t.api.baseUrl, 'PATCH', `${PATH}/${post.id}`, { key: ws.secretKey, body: { title: '' } }), 400, 'VALIDATION_ERROR');
    expect(await storedRow(t.ctx.sequelize, 'blog_posts', post.id)).toEqual(before);
  });

  it('lists every post of the environment: never-published drafts first, then newest publication, then newest created', async () => {
    const ws = await t.ctx.createWorkspace();
    const old = await create(ws.secretKey, { title: 'Old', published: true, publishedAt: '2020-01-01' });
    const draft = await create(ws.secretKey, { title: 'Draft' });
    const recent = await create(ws.secretKey, { title: 'Recent', published: true, publishedAt: '2024-01-01' });
    const unpublished = await create(ws.secretKey, { title: 'Pulled', publishedAt: '2022-01-01' });
    const sameDateLater = await create(ws.secretKey, { title: 'Same date, created later', published: true, publishedAt: '2020-01-01' });
    await create(ws.liveSecretKey, { title: 'Live only' });
    expect((await list(ws.secretKey)).map((p) => p.id)).toEqual([draft.id, recent.id, unpublished.id, sameDateLater.id, old.id]);
  });

  it('DELETE removes the post for good and answers { deleted: true }; the id is then 404', async () => {
    const ws = await t.ctx.createWorkspace();
    const post = await create(ws.secretKey, { title: 'Gone' });
    const res = await http<{ data: unknown }>(t.api.baseUrl, 'DELETE', `${PATH}/${post.id}`, { key: ws.secretKey });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ deleted: true });
    expect(await storedRow(t.ctx.sequelize, 'blog_posts', post.id)).toBeUndefined();
    expectError(await http(t.api.baseUrl, 'GET', `${PATH}/${post.id}`, { key: ws.secretKey }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await http(t.api.baseUrl, 'DELETE', `${PATH}/${post.id}`, { key: ws.secretKey }), 404, 'RESOURCE_NOT_FOUND');
  });

  it('answers 404 for another workspace’s or environment’s post on GET, PATCH and DELETE, leaving it untouched', async () => {
    const owner = await t.ctx.createWorkspace();
    const other = await t.ctx.createWorkspace();
    const post = await create(owner.secretKey, { title: 'Mine' });
    const before = await storedRow(t.ctx.sequelize, 'blog_posts', post.id);
    for (const key of [other.secretKey, other.liveSecretKey, owner.liveSecretKey]) {
      expectError(await http(t.api.baseUrl, 'GET', `${PATH}/${post.id}`, { key }), 404, 'RESOURCE_NOT_FOUND');
      expectError(await http(t.api.baseUrl, 'PATCH', `${PATH}/${post.id}`, { key, body: { title: 'Stolen' } }), 404, 'RESOURCE_NOT_FOUND');
      expectError(await http(t.api.baseUrl, 'DELETE', `${PATH}/${post.id}`, { key }), 404, 'RESOURCE_NOT_FOUND');
      expect(await list(key)).toEqual([]);
    }
    expect(await storedRow(t.ctx.sequelize, 'blog_posts', post.id)).toEqual(before);
  });

  it('refuses publishable keys and requests without a key, writing nothing', async () => {
    const ws = await t.ctx.createWorkspace();
    expectError(await http(t.api.baseUrl, 'POST', PATH, { key: ws.publishableKey, body: { title: 'T' } }), 403, 'FORBIDDEN');
    expectError(await http(t.api.baseUrl, 'GET', PATH, { key: ws.publishableKey }), 403, 'FORBIDDEN');
    expectError(await http(t.api.baseUrl, 'POST', PATH, { body: { title: 'T' } }), 401, 'AUTHENTICATION_REQUIRED');
    expect(await countRows(t.ctx.sequelize, 'blog_posts', ws.accountId)).toBe(0);
  });
});
