import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * The SDK's generated types are the generator's output for today's OpenAPI document: a route, schema or
 * description changed without `npm run sdk:generate` fails here (and so in CI). The generator runs as
 * `npm run sdk:generate` does, in its own process (openapi-typescript loads ES modules that Jest's module system
 * cannot), printing to memory instead of the file.
 */
const ROOT = path.resolve(__dirname, '../..');

it('sdk/src/generated/schema.ts is what `npm run sdk:generate` writes today', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/sdk-generate.ts', '--stdout'], {
    cwd: ROOT,
    maxBuffer: 64 * 1024 * 1024,
  });
  const committed = await readFile(path.join(ROOT, 'sdk/src/generated/schema.ts'), 'utf8');
  expect(stdout.length).toBeGreaterThan(100_000);
  if (stdout !== committed) throw new Error('sdk/src/generated/schema.ts is stale: run npm run sdk:generate and commit the result');
}, 120_000);
