import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * The SDK's generated files are the generator's output for today's OpenAPI document: a route, schema or description
 * changed without `npm run sdk:generate` fails here (and so in CI). The generator runs as `npm run sdk:generate`
 * does, in its own process (openapi-typescript loads ES modules that Jest's module system cannot), printing to
 * memory instead of the files.
 */
const ROOT = path.resolve(__dirname, '../..');

it('sdk/src/generated/ is what `npm run sdk:generate` writes today', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/sdk-generate.ts', '--stdout'], {
    cwd: ROOT,
    maxBuffer: 64 * 1024 * 1024,
  });
  const generated = JSON.parse(stdout) as Record<string, string>;
  expect(Object.keys(generated).sort()).toEqual(['sdk/src/generated/idempotent-operations.ts', 'sdk/src/generated/schema.ts']);
  expect(generated['sdk/src/generated/schema.ts']!.length).toBeGreaterThan(100_000);
  expect(generated['sdk/src/generated/idempotent-operations.ts']).toContain("'post /v1/storefront/products',");
  for (const [file, source] of Object.entries(generated)) {
    const committed = await readFile(path.join(ROOT, file), 'utf8').catch(() => null);
    if (committed !== source) throw new Error(`${file} is stale: run npm run sdk:generate and commit the result`);
  }
}, 120_000);
