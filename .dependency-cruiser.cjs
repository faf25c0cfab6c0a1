/**
 * Architecture rules held by dependency-cruiser (`npm run lint`): no import cycles, and the
 * pure folders stay below the pool (they never import its wiring).
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle: the contract must not import its implementations (move the shared type below both).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'pure-folders-stay-below-the-pool',
      severity: 'error',
      comment: 'Pure rules (reputation, concentration, balance, health, coalesce, batch, retry, jsonrpc, errors, clock) never import the pool or its wiring.',
      from: { path: '^src/(reputation|concentration|health|coalesce|batch|retry|jsonrpc|errors)/' },
      to: { path: '^src/pool/' },
    },
    {
      name: 'core-imports-no-chain-code',
      severity: 'error',
      comment: 'The core knows no chain: typed clients sit on top of it.',
      from: { path: '^src/(pool|admission|reputation|concentration|balance|health|coalesce|batch|retry|jsonrpc|errors|http|config)/' },
      to: { path: '^src/(solana|evm|adapters|cli)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(dist|\\.bench-build|node_modules)/' },
  },
};
