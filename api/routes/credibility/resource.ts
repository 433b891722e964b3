import type { Model, ModelStatic } from 'sequelize';
import { z } from 'zod';
import type { IdPrefix } from '../../../lib/ids';
import { ApiRouter, type EndpointDeps } from '../../endpoint';
import { recordBase } from './fields';
import { createCredibilityService } from './service';

/** What distinguishes one credibility resource (portfolio, testimonials, certifications) from the others. */
export interface CredibilityResource {
  /** Singular, for messages: "Portfolio item not found". */
  name: string;
  path: string;
  /** OpenAPI tag. */
  tag: string;
  /** OpenAPI component name of the record; the bodies are `Create<schemaName>Body` and `Update<schemaName>Body`. */
  schemaName: string;
  idPrefix: IdPrefix;
  /** Keys wrapping the record(s) in `data`. */
  keys: { single: string; list: string };
  model: ModelStatic<Model>;
  /** Whether records carry `productId`, validated on write and hidden on read once the product is archived. */
  linksProduct: boolean;
  /**
   * Writable fields, named as the model's attributes. No defaults here: the table holds them, and a default
   * would make an omitted field on PATCH overwrite the stored value.
   */
  fields: Record<string, z.ZodType>;
  /** Fields required on create. */
  required: readonly string[];
  /** Response fields besides id, accountId, createdAt and updatedAt, in response order. */
  output: Record<string, z.ZodType>;
}

function mapShape(shape: Record<string, z.ZodType>, f: (key: string, schema: z.ZodType) => z.ZodType) {
  return Object.fromEntries(Object.entries(shape).map(([key, schema]) => [key, f(key, schema)]));
}

/** Create and PATCH bodies (both strict: unknown fields are 400) and the record, all from the definition. */
export function credibilitySchemas(def: CredibilityResource) {
  const create = z
    .object(mapShape(def.fields, (key, schema) => (def.required.includes(key) ? schema : schema.optional())))
    .strict()
    .meta({ id: `Create${def.schemaName}Body` });
  const update = z
    .object(mapShape(def.fields, (_key, schema) => schema.optional()))
    .strict()
    .refine((body) => Object.keys(body).length > 0, { message: 'send at least one field to update' })
    .meta({ id: `Update${def.schemaName}Body` });
  const record = z.object({ ...recordBase, ...def.output }).meta({ id: def.schemaName });
  return { create, update, record };
}

/** The five routes of one credibility resource, each answering under its own `data` key. */
export function credibilityRouter(deps: EndpointDeps, def: CredibilityResource) {
  const service = createCredibilityService(deps.sequelize, def);
  const schemas = credibilitySchemas(def);
  const single = z.object({ [def.keys.single]: schemas.record });
  const params = z.object({ id: z.string() });
  const noun = def.name.toLowerCase();
  const one = (record: unknown) => ({ data: { [def.keys.single]: record } });

  return new ApiRouter(def.path, def.tag, deps)
    .add({
      method: 'get',
      path: '/',
      summary: `List every ${noun}, published or not, by sortOrder then creation time (not paginated)`,
      access: 'secret',
      response: z.object({ [def.keys.list]: z.array(schemas.record) }),
      handler: async ({ auth }) => ({ data: { [def.keys.list]: await service.list(auth) } }),
    })
    .add({
      method: 'post',
      path: '/',
      summary: `Create a ${noun}; published unless \`published\` is false`,
      access: 'secret',
      body: schemas.create,
      response: single,
      status: 201,
      handler: async ({ auth, body }) => one(await service.create(auth, body)),
    })
    .add({
      method: 'get',
      path: '/:id',
      summary: `Retrieve a ${noun}`,
      access: 'secret',
      params,
      response: single,
      handler: async ({ auth, params: { id } }) => one(await service.retrieve(auth, id)),
    })
    .add({
      method: 'patch',
      path: '/:id',
      summary: `Update a ${noun}; omitted fields keep their values`,
      access: 'secret',
      body: schemas.update,
      params,
      response: single,
      handler: async ({ auth, body, params: { id } }) => one(await service.update(auth, id, body)),
    })
    .add({
      method: 'delete',
      path: '/:id',
      summary: `Delete a ${noun} permanently`,
      access: 'secret',
      params,
      response: z.object({ deleted: z.literal(true) }),
      handler: async ({ auth, params: { id } }) => {
        await service.remove(auth, id);
        return { data: { deleted: true } };
      },
    }).router;
}
