import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import type { JSONSchema7 } from 'json-schema';
import { sample } from 'openapi-sampler';
import { z } from 'zod';
import { ERROR_CODES } from '../lib/errors';
import { isoTimestamp, singleLine } from '../lib/text';

export { isoTimestamp as Timestamp } from '../lib/text';

/** A resource id in a path: ids are single-line ASCII, and PostgreSQL could not even compare a NUL. */
export const pathId = singleLine({ min: 1, max: 100, trim: false });

/**
 * A file part of a multipart form: a binary string, which generated clients type as a Blob (OpenAPI 3.1 reads
 * `contentMediaType`; 3.0 tools read `format: binary`).
 */
export const binaryPart = (description: string) => z.string().meta({ format: 'binary', contentMediaType: 'application/octet-stream', description });

export const Meta = z
  .object({
    requestId: z.string().meta({ example: 'req_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }),
    timestamp: isoTimestamp,
    page: z.object({ nextCursor: z.string().nullable() }).optional(),
  })
  .meta({ id: 'Meta' });

export const ErrorEnvelope = z
  .object({
    data: z.null(),
    error: z.object({
      code: z.enum(ERROR_CODES),
      message: z.string(),
      details: z.unknown().optional(),
    }),
    meta: Meta,
  })
  .meta({ id: 'ErrorEnvelope' });

export function successEnvelope(data: z.ZodType) {
  return z.object({ data, error: z.null(), meta: Meta });
}

export function createRegistry(): OpenAPIRegistry {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'apiKey', {
    type: 'http',
    scheme: 'bearer',
    description: '`sk_test_…`, `sk_live_…` (secret) or `pk_test_…`, `pk_live_…` (publishable, catalogue reads only)',
  });
  return registry;
}

interface MediaType {
  schema?: unknown;
  example?: unknown;
  examples?: unknown;
}
interface Operation {
  requestBody?: { content?: Record<string, MediaType> };
  responses?: Record<string, { content?: Record<string, MediaType> }>;
}

/**
 * Gives every JSON request body and success response without an example of its own one sampled from its schema
 * (a schema's own `example` meta wins inside the sample), so generated clients and the docs page show one.
 */
function withExamples<D extends { paths?: object }>(document: D): D {
  for (const operations of Object.values(document.paths ?? {}) as Record<string, Operation>[]) {
    for (const operation of Object.values(operations)) {
      const success = Object.entries(operation.responses ?? {}).filter(([status]) => status.startsWith('2'));
      const media = [operation.requestBody?.content?.['application/json'], ...success.map(([, response]) => response.content?.['application/json'])];
      for (const type of media) {
        if (!type?.schema || type.example !== undefined || type.examples !== undefined) continue;
        type.example = sample(type.schema as JSONSchema7, { skipReadOnly: true, enablePatterns: false, quiet: true }, document);
      }
    }
  }
  return document;
}

/** The OpenAPI 3.1 document, generated from the same zod schemas that validate requests. */
export function buildDocument(registry: OpenAPIRegistry, serverUrl: string) {
  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Commerce Service API',
      version: '1.0.0',
      description: 'Multi-tenant commerce backend. Every response uses the `{ data, error, meta }` envelope.',
    },
    servers: [{ url: serverUrl }],
  });
  return withExamples(document);
}
