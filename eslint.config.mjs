import tseslint from 'typescript-eslint';

/**
 * The layers (README, "Architecture"): lib ← db ← domain ← api / activities ← worker, with workflows beside them
 * importing only @temporalio/workflow, their own contracts and types. An import may only point down this list;
 * each rule below names what a folder may not import. Paths are matched on the import text, so a relative
 * import that climbs into a forbidden top-level folder is refused at any depth.
 */
const into = (...folders) => `^(\\.\\./)+(${folders.join('|')})(/|$)`;
const layer = (files, folders, message, extra = []) => ({
  files,
  rules: {
    'no-restricted-imports': ['error', { patterns: [{ regex: into(...folders), message }, ...extra] }],
  },
});

export default tseslint.config(
  // The SDK's generated types are the generator's output, checked by tsc and by test/sdk/generated-fresh.test.ts.
  { ignores: ['node_modules/**', 'dist/**', '.data/**', 'coverage/**', 'sdk/src/generated/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    // Type-aware: a promise nobody awaits or handles is an unhandled rejection waiting to happen.
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
    },
  },
  {
    // One factory makes the service's Temporal clients (lib/temporal-client.ts); a client made by hand would start
    // workflows without the payload codec or outside the request's trace. Tests and the benchmark make theirs on purpose.
    files: ['**/*.ts'],
    ignores: ['lib/temporal-client.ts', 'test/**', 'bench/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@temporalio/client',
              importNames: ['Client', 'WorkflowClient'],
              allowTypeImports: true,
              message: 'Make Temporal clients with createTemporalClient (lib/temporal-client.ts): it adds the payload codec and the tracing interceptors.',
            },
          ],
        },
      ],
    },
  },
  layer(['lib/**/*.ts'], ['api', 'domain', 'db', 'activities', 'worker', 'workflows', 'scripts', 'bench', 'test', 'sdk'], 'lib/ is the kernel: it imports nothing of the project.'),
  layer(['db/**/*.ts'], ['api', 'domain', 'activities', 'worker', 'workflows', 'scripts', 'bench', 'test'], 'db/ holds models, migrations and query helpers: it imports only lib/.'),
  layer(['domain/**/*.ts'], ['api', 'activities', 'worker', 'scripts', 'bench', 'test'], 'domain/ holds the rules shared by the API and the worker: it imports db/, lib/ and workflow contracts, never the layers above.'),
  layer(['activities/**/*.ts'], ['api', 'worker', 'scripts', 'bench', 'test'], 'activities/ do I/O for workflows through domain/, db/ and lib/, never through the API.'),
  layer(['worker/**/*.ts'], ['api', 'scripts', 'bench', 'test'], 'The worker process does not import the API.'),
  layer(
    ['sdk/**/*.ts'],
    ['api', 'domain', 'db', 'activities', 'worker', 'workflows', 'scripts', 'bench', 'test'],
    'sdk/ is the API client integrators use: it imports its generated types and lib/ (the webhook verifier), nothing of the service.',
  ),
  layer(['api/**/*.ts'], ['activities', 'worker', 'scripts', 'bench', 'test'], 'The API reaches rules through domain/, never through activities or the worker.'),
  layer(
    ['api/routes/*/**/*.ts'],
    ['activities', 'worker', 'scripts', 'bench', 'test'],
    'The API reaches rules through domain/, never through activities or the worker.',
    // A route folder is self-contained: shared code lives in domain/ or in api/ itself, not in another route.
    [{ regex: '^\\.\\./(?!\\.\\.)[^/]+/', message: 'A route module may not import another route folder; move what they share to domain/ or api/.' }],
  ),
  {
    // Only the app mounts routes (through the registry); middleware and endpoint machinery never import a route.
    files: ['api/*.ts', 'api/middleware/**/*.ts'],
    ignores: ['api/app.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '(^|/)routes(/|$)', message: 'Only api/app.ts mounts routes; shared code belongs in domain/ or api/.' }, { regex: into('activities', 'worker', 'scripts', 'bench', 'test'), message: 'The API reaches rules through domain/.' }] },
      ],
    },
  },
  {
    // A state machine as data is imported by workflows (above): it may import types, nothing that runs.
    files: ['domain/*/states.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '.', message: 'domain/<area>/states.ts is bundled into workflows: it imports types only.', allowTypeImports: true }] }],
    },
  },
  {
    // Workflow code is replayed: only @temporalio/workflow, pure modules and types may be imported.
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*', 'fs', 'http', 'https', 'crypto', 'pg', 'sequelize', 'express', '@temporalio/client', '@temporalio/activity', '@temporalio/worker'], message: 'Workflows must stay deterministic: do I/O in activities.' },
            {
              // The one exception: an area's state machine as data (domain/<area>/states.ts), which imports nothing that runs.
              regex: '^(\\.\\./)+(?!domain/[^/]+/states$)(db|api|domain|activities/contracts|worker|lib|scripts)(/|$)',
              message: 'Workflows import only @temporalio/workflow, their contracts (workflows/messages.ts), the domain state machines (domain/<area>/states.ts) and types.',
              allowTypeImports: true,
            },
            {
              // The rest of activities/, types too: its index and implementations import the domain, which starts workflows (a circle).
              regex: '^(\\.\\./)+activities(/(?!contracts/)|$)',
              message: 'Workflows take activity types from activities/contracts/<area>.ts only.',
            },
          ],
        },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'Date.now is patched in workflows but say why if you need it.' },
        { object: 'Math', property: 'random', message: 'Use workflow uuid4() instead.' },
      ],
    },
  },
);
