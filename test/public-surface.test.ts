import { describe, expect, it } from 'vitest';

/**
 * The runtime exports of every public entry point. A change here is a change to the
 * package's API: additions are fine, removals and renames are breaking.
 */
const entries = {
  'sturdy-rpc': () => import('../src/index.js'),
  'sturdy-rpc/solana': () => import('../src/solana/index.js'),
  'sturdy-rpc/evm': () => import('../src/evm/index.js'),
  'sturdy-rpc/testing': () => import('../src/testing/index.js'),
  'sturdy-rpc/testing/msw': () => import('../src/testing/msw.js'),
  'sturdy-rpc/fetch': () => import('../src/adapters/fetch.js'),
  'sturdy-rpc/viem': () => import('../src/adapters/viem.js'),
  'sturdy-rpc/kit': () => import('../src/adapters/kit.js'),
  'sturdy-rpc/ethers': () => import('../src/adapters/ethers.js'),
  'sturdy-rpc/metrics/prometheus': () => import('../src/metrics/prometheus.js'),
  'sturdy-rpc/otel': () => import('../src/otel/index.js'),
  'sturdy-rpc/fleet': () => import('../src/fleet/index.js'),
  'sturdy-rpc/credits': () => import('../src/credits/index.js'),
};

describe('public surface', () => {
  it('exports exactly these runtime names per entry point', async () => {
    const surface: Record<string, string[]> = {};
    for (const [name, load] of Object.entries(entries)) surface[name] = Object.keys(await load()).sort();
    expect(surface).toMatchSnapshot();
  });
});
