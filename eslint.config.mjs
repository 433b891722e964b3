import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '.data/**', 'coverage/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    // Workflow code is replayed: only @temporalio/workflow and pure modules may be imported.
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*', 'fs', 'http', 'https', 'crypto', 'pg', 'sequelize', 'express', '../db/*', '../api/*', '../activities/*'], message: 'Workflows must stay deterministic: do I/O in activities.', allowTypeImports: true },
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
