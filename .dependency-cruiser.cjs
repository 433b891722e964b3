/**
 * The import rules eslint cannot see whole (docs/architecture.md, "Layers and areas"): no circle anywhere, type
 * imports included, and a domain area is entered only through its index.ts. eslint.config.mjs keeps the per-folder
 * layer rules; this checks the graph they make.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle, type imports included: break it by moving the shared part down a layer or area.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'area-entry',
      severity: 'error',
      comment: 'Another domain area is imported through its entry, domain/<area>/index.ts, never a file inside it.',
      from: { path: '^domain/([^/]+)/' },
      to: { path: '^domain/[^/]+/', pathNot: ['^domain/$1/', '^domain/[^/]+/index\\.ts$'] },
    },
    {
      name: 'area-entry-from-outside',
      severity: 'error',
      comment: 'Routers, activities, the worker, scripts, the bench and the domain kernel use an area through its entry, domain/<area>/index.ts.',
      from: { path: '^(api|activities|worker|scripts|bench|db|lib)/|^domain/[^/]+\\.ts$' },
      to: { path: '^domain/[^/]+/', pathNot: '^domain/[^/]+/index\\.ts$' },
    },
    {
      name: 'workflow-states-only',
      severity: 'error',
      comment: 'A workflow takes from the domain only the pure state orders of domain/<area>/states.ts: an index would bring Sequelize into the bundle.',
      from: { path: '^workflows/' },
      to: { path: '^domain/', pathNot: '^domain/[^/]+/states\\.ts$' },
    },
    {
      name: 'kernel-below-areas',
      severity: 'error',
      comment: 'The domain kernel (domain/*.ts) sits below the areas; only the composition root, services.ts, builds them all.',
      from: { path: '^domain/[^/]+\\.ts$', pathNot: '^domain/services\\.ts$' },
      to: { path: '^domain/[^/]+/' },
    },
    {
      name: 'sdk-uses-lib-only',
      severity: 'error',
      comment: 'The SDK is what integrators import: its own files (the generated types among them) and lib/, never the service behind the API.',
      from: { path: '^sdk/' },
      to: { path: '^(api|domain|db|activities|workflows|worker|scripts|bench|test)/' },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|\\.data|coverage)/' },
  },
};
