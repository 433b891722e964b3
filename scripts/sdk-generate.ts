/**
 * `npm run sdk:generate`: writes the SDK's generated files (sdk/src/generated/) from the OpenAPI document, built in
 * this process without a database. `--stdout` prints them instead, as JSON by path, which is how
 * test/sdk/generated-fresh.test.ts compares them with the committed files.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { renderSdkFiles } from './lib/sdk-files';

const ROOT = path.join(__dirname, '..');

async function main(): Promise<void> {
  const files = await renderSdkFiles();
  if (process.argv.includes('--stdout')) {
    await new Promise<void>((resolve, reject) => process.stdout.write(JSON.stringify(files), (err) => (err ? reject(err) : resolve())));
    return;
  }
  for (const [file, source] of Object.entries(files)) {
    await writeFile(path.join(ROOT, file), source);
    console.error(`wrote ${file}`);
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
