import { describe, expect, it } from 'vitest';
import { getBalance } from '../../src/evm/index.js';
import { answering, rejection } from '../helpers/stub-requester.js';

const ACCOUNT = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

describe('getBalance from sturdy-rpc/evm, without a client', () => {
  it("answers wei exactly at 'latest' unless a block is given, passing request options through", async () => {
    const { requester, calls } = answering('0x21e19e0c9bab2400000');
    await expect(getBalance(requester, ACCOUNT)).resolves.toBe(10_000n * 10n ** 18n);
    await getBalance(requester, ACCOUNT, 255n, { timeoutMs: 100 });
    expect(calls).toEqual([
      { method: 'eth_getBalance', params: [ACCOUNT, 'latest'], options: undefined },
      { method: 'eth_getBalance', params: [ACCOUNT, '0xff'], options: { timeoutMs: 100 } },
    ]);
  });

  it('refuses a bad address or block with INVALID_INPUT, sending nothing', async () => {
    const { requester, calls } = answering('0x0');
    expect((await rejection(getBalance(requester, '0x1234'))).code).toBe('INVALID_INPUT');
    expect((await rejection(getBalance(requester, ACCOUNT, -1))).code).toBe('INVALID_INPUT');
    expect(calls).toHaveLength(0);
  });

  it('refuses a malformed quantity with INVALID_RESPONSE', async () => {
    expect((await rejection(getBalance(answering('0x-1').requester, ACCOUNT))).code).toBe('INVALID_RESPONSE');
  });
});
