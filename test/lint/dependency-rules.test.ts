import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * The graph rules of .dependency-cruiser.cjs, run by the real dependency-cruiser over a small tree of fixtures: each
 * file is one import that must be refused (the rule it breaks) or allowed (no rule).
 */
const ROOT = path.resolve(__dirname, '../..');

const FILES: Record<string, string> = {
  'domain/billing/index.ts': "export { rate } from './rate';\n",
  'domain/billing/rate.ts': 'export const rate = 1;\n',
  'domain/billing/states.ts': 'export const STATES = [] as const;\n',
  // An area's files import each other directly; another area only through its entry.
  'domain/orders/index.ts': "export { total } from './total';\n",
  'domain/orders/total.ts': "import { rate } from '../billing';\nexport const total = rate;\n",
  'domain/orders/deep.ts': "import { rate } from '../billing/rate';\nexport const deep = rate;\n",
  'api/routes/orders/router.ts': "import { total } from '../../../domain/orders';\nexport const router = total;\n",
  'api/routes/orders/deep.ts': "import { total } from '../../../domain/orders/total';\nexport const deep = total;\n",
  // The kernel sits below the areas; only the composition root builds them.
  'domain/kernel.ts': "import { total } from './orders';\nexport const kernel = total;\n",
  'domain/services.ts': "import { total } from './orders';\nexport const services = total;\n",
  // A circle made of type imports is still a circle.
  'domain/loop/a.ts': "import type { B } from './b';\nexport interface A { b?: B }\n",
  'domain/loop/b.ts': "import type { A } from './a';\nexport interface B { a?: A }\n",
  'workflows/states-user.ts': "import { STATES } from '../domain/billing/states';\nexport const s = STATES;\n",
  'workflows/entry-user.ts': "import { rate } from '../domain/billing';\nexport const r = rate;\n",
};

const EXPECTED: Record<string, string[]> = {
  'domain/orders/deep.ts': ['area-entry'],
  'api/routes/orders/deep.ts': ['area-entry-from-outside'],
  'domain/kernel.ts': ['kernel-below-areas'],
  'domain/loop/a.ts': ['no-circular'], // reported once per circle
  'workflows/entry-user.ts': ['workflow-states-only'],
};

function cruise(dir: string): Record<string, string[]> {
  const script = `
    import { cruise } from 'dependency-cruiser';
    import { createRequire } from 'node:module';
    const require = createRequire(${JSON.stringify(path.join(ROOT, 'package.json'))});
    const config = require(${JSON.stringify(path.join(ROOT, '.dependency-cruiser.cjs'))});
    process.chdir(${JSON.stringify(dir)});
    const result = await cruise(['api', 'domain', 'workflows'], {
      ...config.options, tsConfig: undefined, exclude: undefined, ruleSet: { forbidden: config.forbidden }, validate: true,
    });
    const found = {};
    for (const v of result.output.summary.violations) (found[v.from] ??= []).push(v.rule.name);
    process.stdout.write(JSON.stringify(found));
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  return JSON.parse(out) as Record<string, string[]>;
}

describe('dependency rules (.dependency-cruiser.cjs)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'dep-rules-'));
    for (const [file, text] of Object.entries(FILES)) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), text);
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses exactly the imports that break a rule, and names the rule', () => {
    const found = cruise(dir);
    const sorted = Object.fromEntries(Object.entries(found).map(([file, rules]) => [file, [...new Set(rules)].sort()]));
    expect(sorted).toEqual(EXPECTED);
  }, 60_000);
});
