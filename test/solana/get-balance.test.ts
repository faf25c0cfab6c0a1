import { describe, expect, it } from 'vitest';
import { getBalance, U64_MAX } from '../../src/solana/index.js';
import { answering, rejection } from '../helpers/stub-requester.js';

const ADDRESS = '83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaoBRRS3w5a';

describe('getBalance from sturdy-rpc/solana, without a client', () => {
  it('answers the lamports and slot exactly, and sends the commitment, minContextSlot and request options given', async () => {
    const { requester, calls } = answering({ context: { slot: 7 }, value: U64_MAX });
    await expect(getBalance(requester, ADDRESS)).resolves.toEqual({ slot: 7n, value: U64_MAX });
    await getBalance(requester, ADDRESS, { commitment: 'finalized', minContextSlot: 300n }, { timeoutMs: 250 });
    // No commitment given: none is sent (the node's default), as a client without defaults does.
    expect(calls).toEqual([
      { method: 'getBalance', params: [ADDRESS], options: undefined },
      { method: 'getBalance', params: [ADDRESS, { commitment: 'finalized', minContextSlot: 300 }], options: { timeoutMs: 250 } },
    ]);
  });

  it('refuses a bad address or commitment with INVALID_INPUT, sending nothing', async () => {
    const { requester, calls } = answering({ context: { slot: 1 }, value: 0 });
    expect((await rejection(getBalance(requester, 'not-an-address'))).code).toBe('INVALID_INPUT');
    expect((await rejection(getBalance(requester, ADDRESS, { commitment: 'soon' as never }))).code).toBe('INVALID_INPUT');
    expect(calls).toHaveLength(0);
  });

  it('refuses a malformed answer with INVALID_RESPONSE', async () => {
    const error = await rejection(getBalance(answering({ context: { slot: 1 }, value: -1 }).requester, ADDRESS));
    expect(error.code).toBe('INVALID_RESPONSE');
  });
});
