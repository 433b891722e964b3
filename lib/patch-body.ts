import type { z } from 'zod';

/**
 * A PATCH body must change something: an empty or missing body is `400`, not a silent `200`. The refine is
 * invisible to JSON Schema, so `minProperties: 1` says the same in the published OpenAPI.
 */
export function patchBody<T extends z.ZodType<Record<string, unknown>>>(schema: T, id: string) {
  return schema.refine((body) => Object.keys(body).length > 0, 'send at least one field to update').meta({ id, minProperties: 1 });
}
