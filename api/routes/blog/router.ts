import { ApiRouter } from '../../endpoint';
import type { RouteDeps } from '../route-deps';
import { BlogPostList, BlogPostParams, CreateBlogPostBody, Deleted, SingleBlogPost, UpdateBlogPostBody } from './schemas';

/** The merchant's blog posts: the credibility conventions, answering under `data.post` / `data.posts`. */
export function blogPostsRouter(deps: RouteDeps) {
  const posts = deps.services.blogPosts;
  return new ApiRouter('/v1/blog-posts', 'Blog posts', deps)
    .add({
      method: 'get',
      path: '/',
      summary: 'List every blog post, drafts included: newest publication first, never-published drafts on top (not paginated)',
      access: 'secret',
      response: BlogPostList,
      handler: async ({ auth }) => ({ data: { posts: await posts.list(auth) } }),
    })
    .add({
      method: 'post',
      path: '/',
      summary: 'Create a blog post; a draft unless `published` is true',
      access: 'secret',
      body: CreateBlogPostBody,
      response: SingleBlogPost,
      status: 201,
      handler: async ({ auth, body }) => ({ data: { post: await posts.create(auth, body) } }),
    })
    .add({
      method: 'get',
      path: '/:id',
      summary: 'Retrieve a blog post',
      access: 'secret',
      params: BlogPostParams,
      response: SingleBlogPost,
      handler: async ({ auth, params }) => ({ data: { post: await posts.retrieve(auth, params.id) } }),
    })
    .add({
      method: 'patch',
      path: '/:id',
      summary: 'Update a blog post; omitted fields keep their values',
      access: 'secret',
      params: BlogPostParams,
      body: UpdateBlogPostBody,
      response: SingleBlogPost,
      handler: async ({ auth, params, body }) => ({ data: { post: await posts.update(auth, params.id, body) } }),
    })
    .add({
      method: 'delete',
      path: '/:id',
      summary: 'Delete a blog post permanently',
      access: 'secret',
      params: BlogPostParams,
      response: Deleted,
      handler: async ({ auth, params }) => {
        await posts.remove(auth, params.id);
        return { data: { deleted: true as const } };
      },
    }).router;
}
