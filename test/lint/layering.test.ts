import { execFileSync } from 'node:child_process';
import path from 'node:path';

/**
 * The layering rule of eslint.config.mjs, and its one-factory rule for Temporal clients: each case is an import that
 * must be refused (or allowed) in that file.
 */
const ROOT = path.resolve(__dirname, '../..');

const REFUSED: [string, string][] = [
  ['lib/example.ts', "import { Product } from '../db/models';"],
  ['lib/webhooks/example.ts', "import { createStarters } from '../../domain/workflow-starters';"],
  ['db/example.ts', "import { toProductDto } from '../domain/products/dto';"],
  ['db/models/example.ts', "import { httpStatusOf } from '../../api/errors';"],
  ['domain/products/example.ts', "import { httpStatusOf } from '../../api/errors';"],
  ['domain/products/example.ts', "import type { CreateProductBody } from '../../api/routes/products/schemas';"],
  ['activities/example.ts', "import { createApp } from '../api/app';"],
  ['worker/example.ts', "import { createApp } from '../api/app';"],
  ['api/middleware/example.ts', "import { productsRouter } from '../routes/products/router';"],
  ['api/endpoint-example.ts', "import { ROUTES } from './routes/registry';"],
  ['api/routes/products/example.ts', "import { WebhookEndpoint } from '../webhooks/schemas';"],
  ['workflows/example.ts', "import { Product } from '../db/models';"],
  ['workflows/example.ts', "import { createActivities } from '../activities';"],
  ['workflows/example.ts', "import type { createActivities } from '../activities';"],
  ['workflows/example.ts', "import type { createPayoutActivities } from '../activities/payouts';"],
  ['workflows/example.ts', "import { PayoutActivities } from '../activities/contracts/payouts';"],
  ['workflows/example.ts', "import { canMovePayout } from '../domain/payouts/transitions';"],
  ['domain/payouts/states.ts', "import { Payout } from '../../db/models';"],
  ['sdk/src/example.ts', "import { ERROR_CODES } from '../../api/errors';"],
  ['sdk/src/example.ts', "import { notFound } from '../../domain/products';"],
  ['sdk/src/example.ts', "import { Product } from '../../db/models';"],
  ['lib/example.ts', "import { createCommerceClient } from '../sdk/src';"],
  ['worker/example.ts', "import { Client } from '@temporalio/client';"],
  ['scripts/example.ts', "import { Connection, WorkflowClient } from '@temporalio/client';"],
  ['api/example.ts', "import { Client } from '@temporalio/client';"],
];

const ALLOWED: [string, string][] = [
  ['domain/products/example.ts', "import { Product } from '../../db/models';"],
  ['domain/example.ts', "import { workflowIds } from '../workflows/messages';"],
  ['api/routes/products/example.ts', "import { createStarters } from '../../../domain/workflow-starters';"],
  ['api/routes/products/example.ts', "import type { RouteDeps } from '../registry';"],
  ['api/app.ts', "import { ROUTES } from './routes/registry';"],
  ['workflows/example.ts', "import type { PayoutActivities } from '../activities/contracts/payouts';"],
  ['workflows/example.ts', "import { payoutProgress } from '../domain/payouts/states';"],
  ['domain/payouts/states.ts', "import type { PayoutWorkflowStatus } from '../../workflows/messages';"],
  ['activities/example.ts', "import { emitProductUpdated } from '../domain/products/dto';"],
  ['sdk/src/example.ts', "import { verifyWebhookSignature } from '../../lib/webhooks/signature';"],
  ['sdk/src/example.ts', "import type { paths } from './generated/schema';"],
  ['worker/example.ts', "import { Connection, type Client } from '@temporalio/client';"],
  ['lib/temporal-client.ts', "import { Client } from '@temporalio/client';"],
  ['test/example.ts', "import { Client } from '@temporalio/client';"],
];

/**
 * ESLint loads its flat config with a dynamic import, which jest's module sandbox refuses: the cases are linted
 * by the real ESLint in one child process, as `npm run lint` would lint such files.
 */
function lintAll(cases: [string, string][]): string[][] {
  const script = `
    const { ESLint } = require('eslint');
    const path = require('node:path');
    (async () => {
      // The cases are not files of the project, so the type-aware rules (which need one) are off for them.
      const eslint = new ESLint({ cwd: process.cwd(), overrideConfig: {
        languageOptions: { parserOptions: { projectService: false } },
        rules: { '@typescript-eslint/no-floating-promises': 'off', '@typescript-eslint/no-misused-promises': 'off', '@typescript-eslint/await-thenable': 'off' },
      } });
      const cases = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
      const out = [];
      for (const [file, code] of cases) {
        const [result] = await eslint.lintText(code, { filePath: path.join(process.cwd(), file) });
        out.push(result.messages.filter((m) => m.ruleId === 'no-restricted-imports' || m.ruleId === '@typescript-eslint/no-restricted-imports').map((m) => m.message));
      }
      process.stdout.write(JSON.stringify(out));
    })().catch((err) => { console.error(err); process.exit(1); });`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: ROOT, input: JSON.stringify(cases), encoding: 'utf8' })) as string[][];
}

describe('import layering', () => {
  let refused: string[][];
  let allowed: string[][];
  beforeAll(() => {
    [refused, allowed] = [lintAll(REFUSED), lintAll(ALLOWED)];
  });

  it.each(REFUSED.map((c, i) => [...c, i] as const))('%s may not `%s`', (_file, _code, i) => {
    expect(refused[i]).toHaveLength(1);
  });

  it.each(ALLOWED.map((c, i) => [...c, i] as const))('%s may `%s`', (_file, _code, i) => {
    expect(allowed[i]).toEqual([]);
  });
});
