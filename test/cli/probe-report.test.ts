import { describe, expect, it } from 'vitest';
import { buildProbeReport, type ProbedEndpoint } from '../../src/cli/probe-report.js';

const MAINNET = '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d';
const DEVNET = 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG';
const ETH = '0xd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3';

function row(id: string, facts: Partial<ProbedEndpoint> = {}): ProbedEndpoint {
  return {
    id,
    endpoint: 'http://127.0.0.1',
    reachable: true,
    chain: 'solana',
    p50Ms: 1,
    admissionWaitP50Ms: 0,
    latencySamples: 1,
    version: '2.2.1',
    genesisHash: MAINNET,
    network: 'mainnet-beta',
    chainId: null,
    health: { healthy: true, detail: null },
    error: null,
    ...facts,
  };
}

const flags = (rows: ProbedEndpoint[]) => buildProbeReport(rows, 1).endpoints.map((r) => r.flag);

describe('buildProbeReport', () => {
  it('flags the endpoint whose genesis differs from the majority', () => {
    const report = buildProbeReport([row('a'), row('b', { genesisHash: DEVNET, network: 'devnet' }), row('c')], 1);
    expect(report.endpoints.map((r) => r.flag)).toEqual([null, 'wrong-chain', null]);
    expect(report.majority).toEqual({ chain: 'solana', genesisHash: MAINNET, network: 'mainnet-beta', chainId: null, endpoints: 2 });
    expect(report.ok).toBe(false);
  });

  it('finds no majority in an even split, and flags every endpoint', () => {
    expect(flags([row('a'), row('b', { genesisHash: DEVNET })])).toEqual(['no-majority', 'no-majority']);
  });

  it('is ok with one endpoint, or all on one chain', () => {
    expect(buildProbeReport([row('a')], 1).ok).toBe(true);
    expect(buildProbeReport([row('a'), row('b'), row('c')], 1).ok).toBe(true);
  });

  it('flags unreachable endpoints and those that answered without naming a chain, leaving the majority to the rest', () => {
    const rows = [
      row('a'),
      row('b', { reachable: false, chain: null, genesisHash: null, network: null }),
      row('c', { chain: null, genesisHash: null, network: null }),
    ];
    const report = buildProbeReport(rows, 1);
    expect(report.endpoints.map((r) => r.flag)).toEqual([null, 'unreachable', 'unknown-chain']);
    expect(report.majority?.endpoints).toBe(1);
  });

  it('treats an EVM endpoint that gave only a chain id as on the chain of the same id', () => {
    const evm = (id: string, facts: Partial<ProbedEndpoint>) => row(id, { chain: 'evm', network: null, genesisHash: null, ...facts });
    expect(flags([evm('a', { genesisHash: ETH, chainId: 1 }), evm('b', { chainId: 1 }), evm('c', { chainId: 10 })])).toEqual([null, null, 'wrong-chain']);
    expect(flags([evm('a', { genesisHash: ETH, chainId: 1 }), evm('b', { genesisHash: '0x01', chainId: 1 }), evm('c', { genesisHash: ETH, chainId: 1 })])).toEqual([
      null,
      'wrong-chain',
      null,
    ]);
  });

  it('puts a Solana endpoint among EVM ones on the wrong chain', () => {
    expect(flags([row('s'), row('e1', { chain: 'evm', genesisHash: ETH, chainId: 1 }), row('e2', { chain: 'evm', genesisHash: ETH, chainId: 1 })])).toEqual([
      'wrong-chain',
      null,
      null,
    ]);
  });
});
