import { describe, expect, it } from 'vitest';
import { AGREEMENT_TABLE, agreementRuleOf, canonicalJson, classifyAnswers } from '../../src/consensus/agreement.js';

/** Issue 28 §2: the one table of honest drift, a test per row (and the exact rule every other method gets). */

const allowance = { slot: 100, block: 16 };
const agree = (method: string, a: unknown, b: unknown) => agreementRuleOf(method).agree(a, b, allowance);
const pick = (method: string, a: unknown, b: unknown) => agreementRuleOf(method).pick(a, b);

describe('head: a head within the sync allowance', () => {
  it('eth_blockNumber: one block apart agree (the lower is the answer), 17 apart do not', () => {
    expect(agree('eth_blockNumber', '0x100', '0x101')).toBe(true);
    expect(pick('eth_blockNumber', '0x101', '0x100')).toBe('0x100');
    expect(agree('eth_blockNumber', '0x100', '0x110')).toBe(true);
    expect(agree('eth_blockNumber', '0x100', '0x111')).toBe(false);
    expect(agree('eth_blockNumber', '0x100', 'latest')).toBe(false);
  });

  it.each(['getSlot', 'getBlockHeight'])('%s: within 100 slots agree, 101 apart do not', (method) => {
    expect(agree(method, 1_000, 1_100)).toBe(true);
    expect(pick(method, 1_100, 1_000)).toBe(1_000);
    expect(agree(method, 1_000, 1_101)).toBe(false);
  });
});

describe('fee-band: a fee within 12.5 % of the higher', () => {
  it.each(['eth_gasPrice', 'eth_maxPriorityFeePerGas', 'eth_blobBaseFee'])('%s: 800 and 700 agree (the higher is the answer), 800 and 699 do not', (method) => {
    expect(agree(method, '0x320', '0x2bc')).toBe(true);
    expect(pick(method, '0x2bc', '0x320')).toBe('0x320');
    expect(agree(method, '0x320', '0x2bb')).toBe(false);
  });
});

describe('context-slot: every other method, exact value at a context slot within the allowance', () => {
  const at = (slot: number, value: unknown) => ({ context: { slot, apiVersion: '2.0.15' }, value });

  it('the same value at slots 100 apart agrees (the later context is the answer); another value never does', () => {
    expect(agree('getBalance', at(300, 5), at(400, 5))).toBe(true);
    expect(pick('getBalance', at(300, 5), at(400, 5))).toEqual(at(400, 5));
    expect(agree('getBalance', at(300, 5), at(401, 5))).toBe(false);
    expect(agree('getBalance', at(300, 5), at(300, 6))).toBe(false);
  });

  it('an answer with no context agrees only exactly (key order and bigint spelling aside)', () => {
    expect(agree('eth_getBalance', '0x10', '0x10')).toBe(true);
    expect(agree('eth_getBalance', '0x10', '0x11')).toBe(false);
    expect(agree('eth_getBlockByNumber', { number: '0x1', hash: '0xaa' }, { hash: '0xaa', number: '0x1' })).toBe(true);
    expect(agree('eth_getBlockByNumber', { number: '0x1', hash: '0xaa' }, { number: '0x1', hash: '0xab' })).toBe(false);
    expect(canonicalJson({ b: 1n, a: [2, null] })).toBe('{"a":[2,null],"b":1}');
  });

  it('the table names only the drifting methods', () => {
    expect([...AGREEMENT_TABLE.keys()].sort()).toEqual(['eth_blobBaseFee', 'eth_blockNumber', 'eth_gasPrice', 'eth_maxPriorityFeePerGas', 'getBlockHeight', 'getSlot']);
    expect(agreementRuleOf('getBalance').name).toBe('context-slot');
  });
});

describe('answer classes', () => {
  it('groups agreeing answers in the order they came, labelled a, b, …', () => {
    const classes = classifyAnswers(
      [
        { endpointId: 'x', value: '0x100' },
        { endpointId: 'y', value: '0x200' },
        { endpointId: 'z', value: '0x101' },
      ],
      agreementRuleOf('eth_blockNumber'),
      allowance,
    );
    expect(classes.map((group) => [group.label, group.members.map((m) => m.endpointId), group.value])).toEqual([
      ['a', ['x', 'z'], '0x100'],
      ['b', ['y'], '0x200'],
    ]);
  });
});
