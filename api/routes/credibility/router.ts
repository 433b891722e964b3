import { z } from 'zod';
import { patchBody } from '../../../lib/patch-body';
import { recordBase, type CredibilityResource, type CredibilityService } from '../../../domain/credibility';
import { ApiRouter } from '../../endpoint';
import { pathId } from '../../openapi';
import type { RouteDeps } from '../route-deps';

function mapShape(shape: Record<string, z.ZodType>, f: (key: string, schema: z.ZodType) => z.ZodType) {
  return Object.fromEntries(Object.entries(shape).map(([key, schema]) => [key, f(key, schema)]));
}

/** Create and PATCH bodies (both strict: unknown fields are 400) and the record, all from the definition. */
export function credibilitySchemas(def: CredibilityResource) {
  const create = z
    .object(mapShape(def.fields, (key, schema) => (def.required.includes(key) ? schema : schema.optional())))
    .strict()
    .meta({ id: `Create${def.schemaName}Body` });
  const update = patchBody(z.object(mapShape(def.fields, (_key, schema) => schema.optional())).strict(), `Update${def.schemaName}Body`);
  const record = z.object({ ...recordBase, ...def.output }).meta({ id: def.schemaName });
  return { create, update, record };
}

/** The five routes of one credibility resource, each answering under its own `data` key. */
export function credibilityRouter(deps: RouteDeps, def: CredibilityResource, service: CredibilityService) {
  const schemas = credibilitySchemas(def);
  // Built from the definition at run time, so their static types say nothing: handlers answer unknown data.
  const single: z.ZodType = z.object({ [def.keys.single]: schemas.record });
  const list: z.ZodType = z.object({ [def.keys.list]: z.array(schemas.record) });
  const params = z.object({ id: pathId });
  const noun = def.name.toLowerCase();
  const one = (record: unknown) => ({ data: { [def.keys.single]: record } });

  return new ApiRouter(def.path, def.tag, deps)
    .add({
      method: 'get',
      path: '/',
      summary: `List every ${noun}, published or not, by sortOrder then creation time (not paginated)`,
      access: 'secret',
      response: list,
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
        return { data: { deleted: true as const } };
      },
    }).router;
}
