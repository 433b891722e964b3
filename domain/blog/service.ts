import { col, fn, UniqueConstraintError } from 'sequelize';
import { BlogPost } from '../../db/models';
import { tenantWhere } from '../../db/tenancy';
import { notFound, validationError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { AuthContext } from '../auth-context';
import { slugify, withTimestampSuffix } from '../products';
import { toBlogPostDto, type BlogPostDto } from './dto';
import type { CreateBlogPostBody, UpdateBlogPostBody } from './inputs';

/** A derived slug: the title's, then suffixed candidates (a clash with another process's suffix is near impossible). */
const SLUG_ATTEMPTS = 3;

const isSlugTaken = (err: unknown) =>
  err instanceof UniqueConstraintError && (err.parent as { constraint?: string } | undefined)?.constraint === 'blog_posts_slug';

const slugTaken = (slug: string) => validationError(`slug "${slug}" is already used by another blog post`, [{ field: 'slug', message: 'already used' }]);

/** The merchant's blog posts (`/v1/blog-posts`): no events, no audit entries, deleted for real, like credibility items. */
export function createBlogPostService() {
  return {
    /** Every post of the environment, drafts included: newest publication first, never-published drafts on top. */
    async list(auth: AuthContext): Promise<BlogPostDto[]> {
      const rows = await BlogPost.findAll({
        where: tenantWhere(auth),
        order: [
          ['publishedAt', 'DESC'],
          ['createdAt', 'DESC'],
          ['id', 'DESC'],
        ],
        raw: true,
      });
      return rows.map(toBlogPostDto);
    },

    async retrieve(auth: AuthContext, id: string): Promise<BlogPostDto> {
      const row = await BlogPost.findOne({ where: { id, ...tenantWhere(auth) }, raw: true });
      if (!row) throw notFound('Blog post');
      return toBlogPostDto(row);
    },

    async create(auth: AuthContext, input: CreateBlogPostBody): Promise<BlogPostDto> {
      const { slug, ...fields } = input;
      const values = {
        ...fields,
        ...tenantWhere(auth),
        publishedAt: fields.publishedAt ?? (fields.published ? new Date() : null),
      };
      // A transaction per candidate: a taken slug fails only its own INSERT (inside a request's transaction, under an
      // Idempotency-Key, it is a savepoint, which keeps that transaction usable for the next candidate).
      const base = slug ?? slugify(input.title, 'post');
      const attempts = slug === undefined ? SLUG_ATTEMPTS : 1;
      for (let candidate = base, attempt = 0; attempt < attempts; candidate = withTimestampSuffix(base), attempt += 1) {
        try {
          const row = await BlogPost.sequelize!.transaction((transaction) => BlogPost.create({ ...values, id: newId('post'), slug: candidate }, { transaction }));
          return toBlogPostDto(row.get());
        } catch (err) {
          if (!isSlugTaken(err)) throw err;
        }
      }
      if (slug !== undefined) throw slugTaken(slug);
      throw new Error(`no free slug for "${base}" after ${SLUG_ATTEMPTS} attempts`);
    },

    /** Every successful PATCH moves updatedAt. Publishing a post that never had a publication time stamps it now. */
    async update(auth: AuthContext, id: string, changes: UpdateBlogPostBody): Promise<BlogPostDto> {
      const firstPublication = changes.published === true && changes.publishedAt === undefined;
      try {
        const [count, rows] = await BlogPost.update(
          { ...changes, ...(firstPublication ? { publishedAt: fn('COALESCE', col('published_at'), new Date()) } : {}) },
          { where: { id, ...tenantWhere(auth) }, returning: true },
        );
        if (count === 0) throw notFound('Blog post');
        return toBlogPostDto(rows[0]!.get());
      } catch (err) {
        if (isSlugTaken(err)) throw slugTaken(changes.slug!);
        throw err;
      }
    },

    /** Permanent: posts are not archived. */
    async remove(auth: AuthContext, id: string): Promise<void> {
      const count = await BlogPost.destroy({ where: { id, ...tenantWhere(auth) } });
      if (count === 0) throw notFound('Blog post');
    },
  };
}

export type BlogPostService = ReturnType<typeof createBlogPostService>;
