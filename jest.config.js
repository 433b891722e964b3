/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } }],
    // marked ships ES modules only: Node requires them natively, Jest's module system needs them compiled.
    '/node_modules/marked/.+\\.js$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'ecmascript' } } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!marked/)'],
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  // Refuses any socket that would leave this machine (see the file for what it cannot see).
  setupFiles: ['<rootDir>/test/setup/loopback-only.ts'],
  reporters: ['default', '<rootDir>/test/reporters/closing-line.js'],
  testTimeout: 60_000,
  maxWorkers: 2,
  // Temporal workers keep native handles open briefly after shutdown.
  forceExit: true,
};
