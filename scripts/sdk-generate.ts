/**
 * `npm run sdk:generate`: writes the SDK's generated types (sdk/src/generated/schema.ts) from the OpenAPI document,
 * built in this process without a database. `--stdout` prints them instead, which is how
 * test/sdk/generated-fresh.test.ts compares them with the committed file.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { renderSdkSchema } from './lib/sdk-schema';

const TARGET = path.join(__dirname, '../sdk/src/generated/schema.ts');

async function main(): Promise<void> {
  const source = await renderSdkSchema();
  if (process.argv.includes('--stdout')) {
    await new Promise<void>((resolve, reject) => process.stdout.write(source, (err) => (err ? reject(err) : resolve())));
    return;
  }
  await writeFile(TARGET, source);
  console.error(`wrote ${path.relative(process.cwd(), TARGET)}`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
