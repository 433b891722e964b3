import { z } from 'zod';
import { ApiRouter } from '../../endpoint';
import type { RouteDeps } from '../route-deps';
import {
  AiGenerateAccepted,
  CreateProductBody,
  ListProductsQuery,
  Product,
  ProductFile,
  ProductFileParams,
  ProductIdParams,
  RegisterFileBody,
  UpdateProductBody,
  UploadFileForm,
} from './schemas';

export function productsRouter(deps: RouteDeps) {
  const { products, productFiles: files } = deps.services;
  return new ApiRouter('/v1/storefront/products', 'Products', deps)
    .add({
      method: 'post',
      path: '/',
      summary: 'Create a product (unpublished unless `published` is sent)',
      access: 'secret',
      body: CreateProductBody,
      response: Product,
      status: 201,
      errors: ['QUOTA_EXCEEDED'],
      handler: async ({ auth, body }) => ({ data: await products.create(auth, body) }),
    })
    .add({
      method: 'get',
      path: '/',
      summary: 'List non-archived products, newest first (publishable keys: published products only)',
      access: 'publishable',
      query: ListProductsQuery,
      response: z.array(Product),
      paginated: true,
      handler: async ({ auth, query }) => products.list(auth, query),
    })
    .add({
      method: 'get',
      path: '/:id',
      summary: 'Retrieve a product (publishable keys: published products only)',
      access: 'publishable',
      params: ProductIdParams,
      response: Product,
      handler: async ({ auth, params }) => ({ data: await products.retrieve(auth, params.id) }),
    })
    .add({
      method: 'patch',
      path: '/:id',
      summary: 'Update a product; `metadata` replaces the whole map; emits product.updated even for a no-op',
      access: 'secret',
      params: ProductIdParams,
      body: UpdateProductBody,
      response: Product,
      handler: async ({ auth, params, body }) => ({ data: await products.update(auth, params.id, body) }),
    })
    .add({
      method: 'delete',
      path: '/:id',
      summary: 'Archive a product: unpublished and hidden from the list; the row is kept',
      access: 'secret',
      params: ProductIdParams,
      status: 204,
      handler: async ({ auth, params }) => {
        await products.archive(auth, params.id);
        return { noContent: true };
      },
    })
    .add({
      method: 'post',
      path: '/:id/ai-generate',
      summary: 'Re-run AI copy generation (description and SEO metadata); the message says whether a run started',
      access: 'secret',
      params: ProductIdParams,
      response: AiGenerateAccepted,
      status: 202,
      errors: ['QUOTA_EXCEEDED'],
      handler: async ({ auth, params }) => ({ data: await products.aiGenerate(auth, params.id) }),
    })
    .add({
      method: 'post',
      path: '/:id/files',
      summary: 'Upload a file (multipart/form-data, one part "file") or register an externally hosted one (JSON)',
      access: 'secret',
      params: ProductIdParams,
      body: RegisterFileBody,
      multipart: UploadFileForm,
      response: ProductFile,
      status: 201,
      errors: ['QUOTA_EXCEEDED', 'FILE_TOO_LARGE'],
      handler: async ({ auth, params, body, multipart, req }) => ({
        data: multipart ? await files.upload(auth, params.id, req) : await files.register(auth, params.id, body),
      }),
    })
    .add({
      method: 'delete',
      path: '/:id/files/:fileId',
      summary: 'Delete a product file; its stored blob is removed a few minutes later',
      access: 'secret',
      params: ProductFileParams,
      status: 204,
      handler: async ({ auth, params }) => {
        await files.remove(auth, params.id, params.fileId);
        return { noContent: true };
      },
    }).router;
}
