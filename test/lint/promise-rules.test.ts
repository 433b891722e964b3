import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The type-aware rules of eslint.config.mjs: a promise nobody handles, one handed where a void callback is expected
 * and an await of a non-promise are each refused. The case is a real file of the project (the rules need its types),
 * written for the run and removed after it.
 */
const ROOT = path.resolve(__dirname, '../..');
const CASE = path.join(ROOT, 'test/lint', `promise-rules-case-${process.pid}.ts`);

const CODE = `
export async function later(): Promise<number> {
  return 1;
}
export function floating(): void {
  later();
}
export function misused(): void {
  [1].forEach(async () => {
    await later();
  });
  setTimeout(later, 10);
}
export async function thenable(): Promise<void> {
  await 1;
}
export function handled(): void {
  void later();
  later().catch(() => undefined);
}
`;

describe('type-aware promise rules', () => {
  afterAll(() => rmSync(CASE, { force: true }));

  it('refuses a floating promise, a misused one and an await of a non-promise, and accepts handled ones', () => {
    writeFileSync(CASE, CODE);
    const script = `
      const { ESLint } = require('eslint');
      (async () => {
        const [result] = await new ESLint({ cwd: process.cwd() }).lintFiles([${JSON.stringify(CASE)}]);
        process.stdout.write(JSON.stringify(result.messages.map((m) => [m.line, m.ruleId])));
      })().catch((err) => { console.error(err); process.exit(1); });`;
    const found = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' })) as [number, string][];
    expect(found).toEqual([
      [6, '@typescript-eslint/no-floating-promises'],
      [9, '@typescript-eslint/no-misused-promises'],
      [12, '@typescript-eslint/no-misused-promises'],
      [15, '@typescript-eslint/await-thenable'],
    ]);
  }, 120_000);
});
