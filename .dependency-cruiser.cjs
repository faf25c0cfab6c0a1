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
      comment: 'Pure rules (reputation, concentration, balance, health, coalesce, batch, retry, jsonrpc, integrity, consensus, cache, errors, clock) never import the wiring: the request path or the between-call parts (the pool itself: layers-import-downwards).',
      from: { path: '^src/((reputation|concentration|balance|health|coalesce|cache|batch|retry|jsonrpc|integrity|consensus|errors)/|clock\\.ts$)' },
      to: { path: '^src/(pipeline|parts)/' },
    },
    {
      name: 'core-imports-no-chain-code',
      severity: 'error',
      comment: 'The core knows no chain: typed clients sit on top of it.',
      from: { path: '^src/(pool|api|pipeline|parts|admission|reputation|concentration|balance|health|coalesce|cache|batch|retry|jsonrpc|integrity|consensus|errors|http|config)/' },
      to: { path: '^src/(solana|evm|adapters|cli)/' },
    },
    {
      name: 'layers-import-downwards',
      severity: 'error',
      comment: 'admission < pipeline < parts < pool: nothing below the facade imports it. Only the entry files (src/index.ts, the solana/evm/fleet entries) and what sits on top of a pool (adapters, testing, cli, status, metrics, otel) may.',
      from: {
        pathNot: '^src/((pool|adapters|testing|cli|status|metrics|otel)/|index\\.ts$|(solana|evm|fleet)/index\\.ts$)',
      },
      to: { path: '^src/pool/' },
    },
    {
      name: 'the-request-path-knows-no-part',
      severity: 'error',
      comment: 'Stages and the loop see parts only through the contracts they define (pipeline/host.ts).',
      from: { path: '^src/(admission|api|pipeline)/' },
      to: { path: '^src/parts/' },
    },
    {
      name: 'admission-below-the-path',
      severity: 'error',
      comment: 'Admission decides who may take a call; it knows nothing of how the call is run.',
      from: { path: '^src/(admission|api)/' },
      to: { path: '^src/pipeline/' },
    },
    {
      name: 'the-request-path-imports-only-below-it',
      severity: 'error',
      comment: 'The stages and the loop build on admission, the api types, config, the executor (http) and the pure folders, nothing else (parts and the pool: the rules above).',
      from: { path: '^src/pipeline/' },
      to: {
        path: '^src/',
        pathNot:
          '^src/((pipeline|parts|pool|admission|api|config|http|reputation|concentration|balance|health|coalesce|cache|batch|retry|jsonrpc|integrity|consensus|errors)/|clock\\.ts$)',
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(dist|\\.bench-build|node_modules)/' },
  },
};
