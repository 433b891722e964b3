/** `npm run -s env-example > .env.example`: see scripts/lib/env-example.ts. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CONFIG_VARIABLES } from '../lib/config';
import { documentedVariables, renderEnvExample } from './lib/env-example';

const docs = readFileSync(path.join(__dirname, '../docs/configuration.md'), 'utf8');
process.stdout.write(renderEnvExample(CONFIG_VARIABLES, documentedVariables(docs)));
