/** `npm run -s openapi`: prints the OpenAPI document as JSON on stdout, without a database (scripts/lib/openapi-document.ts). */
import { buildOpenApiDocument } from './lib/openapi-document';

async function main(): Promise<void> {
  const document = await buildOpenApiDocument(process.env);
  // A pipe's writes are asynchronous: exit only once the whole document has been handed over.
  await new Promise<void>((resolve, reject) => process.stdout.write(`${JSON.stringify(document, null, 2)}\n`, (err) => (err ? reject(err) : resolve())));
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
