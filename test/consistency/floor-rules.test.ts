import { describe, expect, it } from 'vitest';
import { provenHeadOf } from '../../src/consistency/answer-floor.js';
import { withMinContextSlot } from '../../src/consistency/min-context-slot.js';

describe('minContextSlot from a floor', () => {
  it('adds the config object where the method takes it, or raises a lower minContextSlot; keeps the caller’s other fields', () => {
    expect(withMinContextSlot('getSlot', [], 100n)).toEqual([{ minContextSlot: 100 }]);
    expect(withMinContextSlot('getBalance', ['addr'], 100n)).toEqual(['addr', { minContextSlot: 100 }]);
    expect(withMinContextSlot('getBalance', ['addr', { commitment: 'confirmed', minContextSlot: 7 }], 100n)).toEqual(['addr', { commitment: 'confirmed', minContextSlot: 100 }]);
    expect(withMinContextSlot('getTokenAccountsByOwner', ['o', { mint: 'm' }], 5n)).toEqual(['o', { mint: 'm' }, { minContextSlot: 5 }]);
    expect(withMinContextSlot('getLatestBlockhash', [null], 5n)).toEqual([{ minContextSlot: 5 }]);
  });

  it('leaves the params as they are (the same array) where nothing is to be added', () => {
    const higher = ['addr', { minContextSlot: 500 }];
    expect(withMinContextSlot('getBalance', higher, 100n)).toBe(higher);
    const noConfig = ['sig'];
    expect(withMinContextSlot('getTransaction', noConfig, 100n)).toBe(noConfig);
    // Sends are never refused for lag: a send is not resent once it may have reached a node.
    const send = ['wire', { encoding: 'base64' }];
    expect(withMinContextSlot('sendTransaction', send, 100n)).toBe(send);
    // Not of the method's shape: the node says what is wrong, not the session.
    const odd = ['addr', 'confirmed'];
    expect(withMinContextSlot('getBalance', odd, 100n)).toBe(odd);
    const short: unknown[] = [];
    expect(withMinContextSlot('getBalance', short, 100n)).toBe(short);
  });
});

describe('what an answer proves', () => {
  it('Solana: context.slot and getSlot; EVM: eth_blockNumber, the latest block, a receipt’s block, any fetched block', () => {
    expect(provenHeadOf('getBalance', [], { context: { slot: 42 }, value: 1 })).toEqual({ kind: 'slot', value: 42n });
    expect(provenHeadOf('getSlot', [], 43)).toEqual({ kind: 'slot', value: 43n });
    expect(provenHeadOf('eth_blockNumber', [], '0x10')).toEqual({ kind: 'block', value: 16n });
    expect(provenHeadOf('eth_getTransactionReceipt', ['0xab'], { blockNumber: '0x2a', status: '0x1' })).toEqual({ kind: 'block', value: 42n });
    expect(provenHeadOf('eth_getBlockByNumber', ['0x5', false], { number: '0x5' })).toEqual({ kind: 'block', value: 5n });
    expect(provenHeadOf('eth_getBlockByHash', ['0xabc', false], { number: '0x6' })).toEqual({ kind: 'block', value: 6n });
  });

  it('nothing from answers that prove nothing: a null receipt, a balance, a malformed number, getBlockHeight', () => {
    expect(provenHeadOf('eth_getTransactionReceipt', ['0xab'], null)).toBeUndefined();
    expect(provenHeadOf('eth_getBalance', [], '0x5')).toBeUndefined();
    expect(provenHeadOf('eth_getTransactionReceipt', ['0xab'], { blockNumber: 'zz' })).toBeUndefined();
    expect(provenHeadOf('getBlockHeight', [], 40)).toBeUndefined();
  });
});
