import { base58, base64 } from '@scure/base';
import { describe, expect, it } from 'vitest';
import { INTEGRITY_ROWS, integrityAskOf, integrityFactsOf, type IntegrityCheckName } from '../../src/integrity/integrity-ask.js';

/** The table of pure checks: what each question accepts and what it refuses. */

const verify = (method: string, params: readonly unknown[], result: unknown, facts = {}, chainVerified = true) => integrityAskOf(method, params, facts)?.verify(result, chainVerified);
const hash = (digit: string) => `0x${digit.repeat(64)}`;

describe('the table', () => {
  it('names every check once across its rows', () => {
    const names = INTEGRITY_ROWS.flatMap((row) => row.checks);
    const all: IntegrityCheckName[] = ['receipt-hash', 'transaction-hash', 'block-number', 'block-hash', 'settled-hash', 'genesis-hash', 'chain-id', 'log-block-range', 'log-block-hash', 'log-address', 'log-topics', 'log-order', 'transaction-signature', 'min-context-slot'];
    expect(new Set(names)).toEqual(new Set(all));
  });

  it('asks nothing of everyday reads that carry no question (no allocation, no check)', () => {
    expect(integrityAskOf('eth_getBalance', ['0x00000000000000000000000000000000000000aa', 'latest'])).toBeUndefined();
    expect(integrityAskOf('getBalance', ['83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaoBRRS3w5a', { commitment: 'confirmed' }])).toBeUndefined();
    expect(integrityAskOf('eth_blockNumber', [])).toBeUndefined();
    expect(integrityAskOf('eth_getBlockByNumber', ['latest', false])).toBeUndefined();
    expect(integrityAskOf('eth_chainId', [])).toBeUndefined();
  });
});

describe('EVM rows', () => {
  it('take "not found" (null) as no lie, and compare hashes without case', () => {
    expect(verify('eth_getTransactionReceipt', [hash('a')], null)).toBeUndefined();
    expect(verify('eth_getTransactionReceipt', [hash('a')], { transactionHash: hash('A') })).toBeUndefined();
    expect(verify('eth_getTransactionReceipt', [hash('a')], { transactionHash: hash('b') })).toBe('receipt-hash');
    expect(verify('eth_getTransactionReceipt', [hash('a')], 'garbage')).toBe('receipt-hash');
    expect(verify('eth_getBlockByHash', [hash('a'), false], { hash: hash('b') })).toBe('block-hash');
  });

  it('check a block by number only for a number, not a tag; block 0 against an EVM genesis hash', () => {
    expect(verify('eth_getBlockByNumber', ['0x10', false], { number: '0x10' })).toBeUndefined();
    expect(verify('eth_getBlockByNumber', ['0x10', false], { number: '0x010' })).toBeUndefined();
    expect(verify('eth_getBlockByNumber', ['0x10', false], { number: 16 })).toBe('block-number');
    expect(verify('eth_getBlockByNumber', ['0x10', false], { hash: hash('a') })).toBeUndefined();
    const facts = integrityFactsOf({ genesisHash: hash('A') });
    expect(verify('eth_getBlockByNumber', ['0x0', false], { number: '0x0', hash: hash('a') }, facts)).toBeUndefined();
    expect(verify('eth_getBlockByNumber', ['0x0', false], { number: '0x0', hash: hash('b') }, facts)).toBe('genesis-hash');
    // An endpoint not held to expectedChain (verifyChain: false) is not checked against it.
    expect(verify('eth_getBlockByNumber', ['0x0', false], { number: '0x0', hash: hash('b') }, facts, false)).toBeUndefined();
  });

  it('check eth_chainId against expectedChain, as a quantity', () => {
    const facts = integrityFactsOf({ chainId: 137 });
    expect(verify('eth_chainId', [], '0x89', facts)).toBeUndefined();
    expect(verify('eth_chainId', [], '0x1', facts)).toBe('chain-id');
    expect(verify('eth_chainId', [], 137, facts)).toBe('chain-id');
  });
});

describe('the eth_getLogs row', () => {
  const A = '0x00000000000000000000000000000000000000aa';
  const log = (fields: Record<string, unknown>) => ({ address: A, blockNumber: '0x10', blockHash: hash('d'), logIndex: '0x0', topics: [hash('1'), hash('2')], ...fields });

  it('takes topic lists as "one of", null and missing positions as any, addresses in any case', () => {
    const filter = { fromBlock: '0x10', toBlock: 'latest', address: [A.toUpperCase().replace('0X', '0x'), hash('e').slice(0, 42)], topics: [null, [hash('3'), hash('2')]] };
    expect(verify('eth_getLogs', [filter], [log({}), log({ blockNumber: '0x99', blockHash: hash('f') })])).toBeUndefined();
    expect(verify('eth_getLogs', [filter], [log({ topics: [hash('1')] })])).toBe('log-topics');
    expect(verify('eth_getLogs', [filter], [log({ blockNumber: '0xf' })])).toBe('log-block-range');
  });

  it('wants logIndex strictly rising within a block, and lets a new block start again', () => {
    const ordered = [log({ logIndex: '0x0' }), log({ logIndex: '0x2' }), log({ blockNumber: '0x11', blockHash: hash('e'), logIndex: '0x0' })];
    expect(verify('eth_getLogs', [{}], ordered)).toBeUndefined();
    expect(verify('eth_getLogs', [{}], [log({ logIndex: '0x2' }), log({ logIndex: '0x2' })])).toBe('log-order');
  });

  it('leaves an answer that is no list to the typed client', () => {
    expect(verify('eth_getLogs', [{ fromBlock: '0x1' }], { not: 'a list' })).toBeUndefined();
  });
});

describe('Solana rows', () => {
  const signatureBytes = new Uint8Array(64).fill(7);
  const otherBytes = new Uint8Array(64).fill(9);
  const SIGNATURE = base58.encode(signatureBytes);
  const wire = (...signatures: Uint8Array[]) => base64.encode(new Uint8Array([signatures.length, ...signatures.flatMap((s) => [...s]), 1, 2, 3]));

  it('reads the signatures of json and base64 transactions; cannot judge zstd', () => {
    expect(verify('getTransaction', [SIGNATURE], { transaction: { signatures: [SIGNATURE] } })).toBeUndefined();
    expect(verify('getTransaction', [SIGNATURE, { encoding: 'base64' }], { transaction: [wire(otherBytes, signatureBytes), 'base64'] })).toBeUndefined();
    expect(verify('getTransaction', [SIGNATURE, { encoding: 'base64' }], { transaction: [wire(otherBytes), 'base64'] })).toBe('transaction-signature');
    expect(verify('getTransaction', [SIGNATURE, { encoding: 'base64' }], { transaction: ['AAAA', 'base64+zstd'] })).toBeUndefined();
    expect(verify('getTransaction', [SIGNATURE], null)).toBeUndefined();
    expect(verify('getTransaction', [SIGNATURE], { meta: null })).toBeUndefined();
    expect(verify('getTransaction', [SIGNATURE], { transaction: ['not base64!', 'base64'] })).toBe('transaction-signature');
  });

  it('holds context.slot, and getSlot’s own slot, to the minContextSlot sent', () => {
    expect(verify('getSlot', [{ minContextSlot: 50 }], 49)).toBe('min-context-slot');
    expect(verify('getSlot', [{ minContextSlot: 50 }], 50)).toBeUndefined();
    expect(verify('getAccountInfo', ['x', { minContextSlot: 50n }], { context: { slot: 49 }, value: null })).toBe('min-context-slot');
    expect(verify('getMultipleAccounts', [['x'], { minContextSlot: 50 }], { context: { slot: 2n ** 64n }, value: [] })).toBeUndefined();
  });

  it('checks getGenesisHash only against a Solana expectedChain', () => {
    const mainnet = '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d';
    expect(verify('getGenesisHash', [], 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG', integrityFactsOf({ genesisHash: mainnet }))).toBe('genesis-hash');
    expect(verify('getGenesisHash', [], mainnet, integrityFactsOf({ genesisHash: mainnet }))).toBeUndefined();
    expect(integrityAskOf('getGenesisHash', [], integrityFactsOf({ chainId: 1 }))).toBeUndefined();
  });
});
