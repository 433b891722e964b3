/**
 * What integrators generating a client rely on, held for every operation of the served document: a stable unique
 * operationId and a description, an example on every JSON request body and success response that its schema
 * accepts, the Idempotency-Key and X-Account-Id headers where the API reads them, and the response headers sent.
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { operationIdOf } from '../../api/endpoint';
import { http, useTestApi } from '../helpers/context';

const t = useTestApi();
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
}
interface Media {
  schema?: object;
  example?: unknown;
}
interface Operation {
  operationId?: string;
  description?: string;
  security?: object[];
  parameters?: Parameter[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, Media> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: object;
}

let document: Document;
let operations: { where: string; method: string; op: Operation }[];

beforeAll(async () => {
  document = (await http<Document>(t.api.baseUrl, 'GET', '/api/openapi.json')).body;
  operations = Object.entries(document.paths).flatMap(([path, byMethod]) => Object.entries(byMethod).map(([method, op]) => ({ where: `${method.toUpperCase()} ${path}`, method, op })));
});

const headerNames = (op: Operation) => (op.parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name.toLowerCase());
const authenticated = (op: Operation) => (op.security ?? []).some((requirement) => 'apiKey' in requirement);

describe('OpenAPI rules, for every operation', () => {
  it('has a unique operationId derived from its method and path, and a description', () => {
    expect(operations.length).toBeGreaterThan(100);
    const ids = operations.map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(operations.length);
    for (const { where, method, op } of operations) {
      expect([where, op.operationId]).toEqual([where, operationIdOf(method, where.split(' ')[1]!)]);
      expect([where, (op.description ?? '').length > 20]).toEqual([where, true]);
    }
    expect(operationIdOf('get', '/v1/payment/payouts/{id}')).toBe('getPaymentPayoutsById');
  });

  it('gives every JSON request body and success response an example its own schema accepts', () => {
    const problems: string[] = [];
    for (const { where, op } of operations) {
      const media = [
        ['request', op.requestBody?.content['application/json']],
        ...Object.entries(op.responses)
          .filter(([status]) => status.startsWith('2'))
          .map(([status, response]) => [status, response.content?.['application/json']] as const),
      ] as const;
      for (const [which, type] of media) {
        if (!type?.schema) continue;
        if (type.example === undefined) problems.push(`${where} ${which}: no example`);
        // The schema's $refs point into the document's components, so they travel with it.
        else {
          const accepts = ajv.compile({ ...type.schema, components: document.components });
          if (!accepts(type.example)) problems.push(`${where} ${which}: ${ajv.errorsText(accepts.errors)}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('declares Idempotency-Key on every mutating operation and X-Account-Id on every one a key authenticates', () => {
    for (const { where, method, op } of operations) {
      const headers = headerNames(op);
      if (method !== 'get' && authenticated(op) && op.security?.length === 1) expect([where, headers]).toEqual([where, expect.arrayContaining(['idempotency-key'])]);
      if (authenticated(op)) expect([where, headers]).toEqual([where, expect.arrayContaining(['x-account-id'])]);
      else expect([where, headers]).toEqual([where, expect.not.arrayContaining(['x-account-id'])]);
    }
  });

  it('declares X-Request-Id on every response, Retry-After on 429 and 503, and the cache headers where sent', () => {
    for (const { where, op } of operations) {
      for (const [status, response] of Object.entries(op.responses)) {
        expect([where, status, Object.keys(response.headers ?? {})]).toEqual([where, status, expect.arrayContaining(['X-Request-Id'])]);
        if (status === '429' || status === '503') expect([where, status, Object.keys(response.headers ?? {})]).toEqual([where, status, expect.arrayContaining(['Retry-After'])]);
      }
      if (op.responses['304']) expect([where, Object.keys(op.responses['200']?.headers ?? {})]).toEqual([where, expect.arrayContaining(['ETag', 'Cache-Control'])]);
      if (authenticated(op) && op.security?.length === 1) {
        const success = Object.entries(op.responses).find(([status]) => status.startsWith('2'))![1];
        expect([where, Object.keys(success.headers ?? {})]).toEqual([where, expect.arrayContaining(['Cache-Control'])]);
      }
    }
  });
});

describe('the headers the document declares are the ones sent', () => {
  it('sends X-Request-Id and Cache-Control: no-store on a keyed answer', async () => {
    const { secretKey } = await t.ctx.createWorkspace();
    const keyed = await fetch(`${t.api.baseUrl}/api/v1/modules`, { headers: { authorization: `Bearer ${secretKey}` } });
    expect(keyed.status).toBe(200);
    expect(keyed.headers.get('x-request-id')).toMatch(/^req_/);
    expect(keyed.headers.get('cache-control')).toBe('no-store');
  });
});
