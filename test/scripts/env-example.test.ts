/** .env.example is generated from the config schema and docs/configuration.md, and kept current. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CONFIG_VARIABLES } from '../../lib/config';
import { documentedVariables, renderEnvExample } from '../../scripts/lib/env-example';

const root = path.resolve(__dirname, '../..');
const docs = readFileSync(path.join(root, 'docs/configuration.md'), 'utf8');

describe('.env.example', () => {
  it('is what `npm run -s env-example` renders today (regenerate it after changing a variable)', () => {
    expect(readFileSync(path.join(root, '.env.example'), 'utf8')).toBe(renderEnvExample(CONFIG_VARIABLES, documentedVariables(docs)));
  });

  it('lists every variable the schema reads, each with its documented meaning', () => {
    const example = readFileSync(path.join(root, '.env.example'), 'utf8');
    for (const name of CONFIG_VARIABLES) expect(example).toContain(`\n# ${name}=\n`);
    expect(CONFIG_VARIABLES).toContain('DATABASE_URL');
  });

  it('refuses a variable docs/configuration.md does not describe', () => {
    expect(() => renderEnvExample([...CONFIG_VARIABLES, 'NEW_SETTING'], documentedVariables(docs))).toThrow('docs/configuration.md has no row for NEW_SETTING');
  });

  it('reads a row naming several variables as documenting each', () => {
    const rows = documentedVariables('| Variable | Default | Meaning |\n|---|---|---|\n| `A_ONE`, `A_TWO` | `1` | see [there](x.md) |\n');
    expect(rows.get('A_TWO')).toEqual({ default: '1', meaning: 'see there' });
  });
});
