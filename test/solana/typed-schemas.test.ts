import { base64 } from '@scure/base';
import { describe, expect, it } from 'vitest';
import { createSolanaClient, U64_MAX, type SolanaClient } from '../../src/solana/index.js';
import { loadFixture } from '../helpers/loopback.js';
import { answering, rejection, stub } from '../helpers/stub-requester.js';

/**
 * Every new typed Solana call: a malformed answer is `INVALID_RESPONSE` naming the path and
 * the check (never the value), and bad input is `INVALID_INPUT` with nothing sent.
 */

const OWNER = '83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaoBRRS3w5a';
const SYSTEM = '11111111111111111111111111111111';
const BLOCKHASH = 'EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N';
const SIG = '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW';
const WIRE = loadFixture('solana-sendTransaction').request.params[0] as string;
const MESSAGE = loadFixture('solana-getFeeForMessage').request.params[0] as string;
const ctx = { context: { slot: 5 } };
const account = (data: unknown, extra: Record<string, unknown> = {}) => ({
  data,
  executable: false,
  lamports: 1,
  owner: SYSTEM,
  rentEpoch: 0,
  ...extra,
});

type Call = (sol: SolanaClient) => Promise<unknown>;
const malformed: readonly (readonly [string, Call, unknown, string])[] = [
  ['getSlot', (s) => s.getSlot(), -1, 'result: too_small'],
  ['getSlot', (s) => s.getSlot(), U64_MAX + 1n, 'result: too_big'],
  ['getBlockHeight', (s) => s.getBlockHeight(), '12', 'result: invalid_union'],
  ['getLatestBlockhash', (s) => s.getLatestBlockhash(), { ...ctx, value: { blockhash: 'not-base58-0OIl', lastValidBlockHeight: 1 } }, 'value.blockhash: custom'],
  ['isBlockhashValid', (s) => s.isBlockhashValid(BLOCKHASH), { ...ctx, value: 'yes' }, 'value: invalid_type'],
  ['getAccountInfo', (s) => s.getAccountInfo(OWNER), { ...ctx, value: account(['AQID', 'base58']) }, 'value.data.1: invalid_value'],
  ['getAccountInfo', (s) => s.getAccountInfo(OWNER), { ...ctx, value: account(['AQID', 'base64'], { owner: 'x' }) }, 'value.owner: custom'],
  ['getMultipleAccounts', (s) => s.getMultipleAccounts([OWNER, SYSTEM]), { ...ctx, value: [null] }, 'value: too_small'],
  ['getProgramAccounts', (s) => s.getProgramAccounts(SYSTEM), { ...ctx, value: [{ pubkey: OWNER, account: account(['AQID', 'base64'], { lamports: -1 }) }] }, 'value.0.account.lamports: too_small'],
  ['getTokenAccountBalance', (s) => s.getTokenAccountBalance(OWNER), { ...ctx, value: { amount: '18446744073709551616', decimals: 2, uiAmountString: '1' } }, 'value.amount: too_big'],
  ['getTokenAccountBalance', (s) => s.getTokenAccountBalance(OWNER), { ...ctx, value: { amount: 12, decimals: 2, uiAmountString: '1' } }, 'value.amount: invalid_type'],
  ['getTokenAccountsByOwner', (s) => s.getTokenAccountsByOwner(OWNER, { mint: SYSTEM }), { ...ctx, value: [{ pubkey: 'short', account: account(['', 'base64']) }] }, 'value.0.pubkey: custom'],
  ['getSignatureStatuses', (s) => s.getSignatureStatuses([SIG]), { ...ctx, value: [] }, 'value: too_small'],
  ['getSignatureStatuses', (s) => s.getSignatureStatuses([SIG]), { ...ctx, value: [{ slot: 1, confirmations: null, err: null, confirmationStatus: 'rooted' }] }, 'value.0.confirmationStatus: invalid_value'],
  ['getTransaction', (s) => s.getTransaction(SIG), { slot: 1, blockTime: null, meta: { err: null, fee: 'x', preBalances: [], postBalances: [] }, transaction: { signatures: [SIG], message: {} } }, 'meta.fee: invalid_union'],
  ['simulateTransaction', (s) => s.simulateTransaction(WIRE), { ...ctx, value: { err: null, logs: 'none' } }, 'value.logs: invalid_type'],
  ['getRecentPrioritizationFees', (s) => s.getRecentPrioritizationFees(), [{ slot: 1 }], '0.prioritizationFee: invalid_union'],
  ['getFeeForMessage', (s) => s.getFeeForMessage(MESSAGE), { ...ctx, value: 1.5 }, 'value: invalid_union'],
  ['getMinimumBalanceForRentExemption', (s) => s.getMinimumBalanceForRentExemption(0), null, 'result: invalid_union'],
];

describe('a malformed answer is INVALID_RESPONSE naming where it broke', () => {
  it.each(malformed.map(([method, call, result, reason]) => [method, reason, call, result] as const))('%s: %s', async (method, reason, call, result) => {
    const error = await rejection(call(createSolanaClient(answering(result).requester)));
    expect(error.code).toBe('INVALID_RESPONSE');
    expect(error.method).toBe(method);
    expect(error.context).toEqual({ reason });
  });
});

describe('account data', () => {
  const bytes = Uint8Array.from({ length: 300 }, (_, i) => i & 0xff);
  const full = (data: Uint8Array, space = data.length) => ({ ...ctx, value: account([base64.encode(data), 'base64'], { space }) });

  it('decodes base64 to the exact bytes and always asks for base64 (base58 caps data at 129 bytes)', async () => {
    const { requester, calls } = answering(full(bytes));
    const { value } = await createSolanaClient(requester).getAccountInfo(OWNER);
    expect(value?.data).toEqual(bytes);
    expect(calls[0]?.params).toEqual([OWNER, { encoding: 'base64' }]);
  });

  it('refuses data above maxDataBytes before decoding it, and accepts it at the limit', async () => {
    const over = await rejection(createSolanaClient(answering(full(bytes)).requester).getAccountInfo(OWNER, { maxDataBytes: 299 }));
    expect(over.context).toEqual({ reason: 'value.data: too_big' });
    const at = await createSolanaClient(answering(full(bytes)).requester).getAccountInfo(OWNER, { maxDataBytes: 300 });
    expect((at.value?.data as Uint8Array).length).toBe(300);
    const many = await rejection(
      createSolanaClient(answering({ ...ctx, value: [full(bytes).value, full(bytes.subarray(0, 10)).value] }).requester).getMultipleAccounts([OWNER, SYSTEM], { maxDataBytes: 100 }),
    );
    expect(many.context).toEqual({ reason: 'value.0.data: too_big' });
  });

  it('judges size on the text before decoding it: oversized text is too_big even when it is not base64', async () => {
    const huge = { ...ctx, value: account(['!'.repeat(4_000), 'base64']) };
    const error = await rejection(createSolanaClient(answering(huge).requester).getAccountInfo(OWNER, { maxDataBytes: 1_000 }));
    expect(error.context).toEqual({ reason: 'value.data: too_big' });
  });

  it('refuses bytes that disagree with the space the node reported, unless a dataSlice was asked for', async () => {
    const lying = await rejection(createSolanaClient(answering(full(bytes, 301)).requester).getAccountInfo(OWNER));
    expect(lying.context).toEqual({ reason: 'value.data: space-mismatch' });
    const sliced = await createSolanaClient(answering(full(bytes.subarray(0, 8), 301)).requester).getAccountInfo(OWNER, { dataSlice: { offset: 0, length: 8 } });
    expect(sliced.value?.space).toBe(301n);
  });

  it('refuses text that is not base64', async () => {
    const error = await rejection(createSolanaClient(answering({ ...ctx, value: account(['!!!!', 'base64']) }).requester).getAccountInfo(OWNER));
    expect(error.context).toEqual({ reason: 'value.data: custom' });
  });

  it('passes jsonParsed data through and falls back to bytes for an account the node could not parse', async () => {
    const parsed = { program: 'spl-token', parsed: { type: 'mint', info: { supply: 2n ** 64n - 1n } }, space: 82 };
    const { requester, calls } = answering({ ...ctx, value: [account(parsed), account(['AQID', 'base64'])] });
    const { value } = await createSolanaClient(requester).getMultipleAccounts([OWNER, SYSTEM], { encoding: 'jsonParsed' });
    expect(value[0]?.data).toEqual({ program: 'spl-token', parsed: parsed.parsed, space: 82n });
    expect(value[1]?.data).toEqual(Uint8Array.from([1, 2, 3]));
    expect(calls[0]?.params).toEqual([[OWNER, SYSTEM], { encoding: 'jsonParsed' }]);
  });

  it('refuses a getProgramAccounts answer without the context it asked for (the slot would be a guess)', async () => {
    const error = await rejection(createSolanaClient(answering([]).requester).getProgramAccounts(SYSTEM));
    expect(error.context).toEqual({ reason: 'context: missing' });
  });

  it('writes filters as the node expects: bytes as base64, text with its encoding', async () => {
    const { requester, calls } = answering({ ...ctx, value: [] });
    await createSolanaClient(requester).getProgramAccounts(SYSTEM, {
      filters: [{ dataSize: 165n }, { memcmp: { offset: 0, bytes: Uint8Array.from([1, 2]) } }, { memcmp: { offset: 32, bytes: 'AQI=', encoding: 'base64' } }],
    });
    expect(calls[0]?.params[1]).toEqual({
      encoding: 'base64',
      filters: [{ dataSize: 165 }, { memcmp: { offset: 0, bytes: 'AQI=', encoding: 'base64' } }, { memcmp: { offset: 32, bytes: 'AQI=', encoding: 'base64' } }],
      withContext: true,
    });
  });
});

describe('bad input is INVALID_INPUT, and nothing is sent', () => {
  const cases: readonly (readonly [string, Call])[] = [
    ['address', (s) => s.getAccountInfo('nope')],
    ['encoding', (s) => s.getAccountInfo(OWNER, { encoding: 'base58' as never })],
    ['dataSlice.length', (s) => s.getAccountInfo(OWNER, { dataSlice: { offset: 0, length: -1 } })],
    ['maxDataBytes', (s) => s.getAccountInfo(OWNER, { maxDataBytes: 1.5 })],
    ['addresses', (s) => s.getMultipleAccounts([])],
    ['addresses', (s) => s.getMultipleAccounts(Array.from({ length: 101 }, () => OWNER))],
    ['addresses.1', (s) => s.getMultipleAccounts([OWNER, 'x'])],
    ['filters', (s) => s.getProgramAccounts(SYSTEM, { filters: Array.from({ length: 5 }, () => ({ dataSize: 1 })) })],
    ['filters.0.memcmp.bytes', (s) => s.getProgramAccounts(SYSTEM, { filters: [{ memcmp: { offset: 0, bytes: new Uint8Array(129) } }] })],
    ['filters.0.memcmp.bytes', (s) => s.getProgramAccounts(SYSTEM, { filters: [{ memcmp: { offset: 0, bytes: '0OIl' } }] })],
    ['filters.0', (s) => s.getProgramAccounts(SYSTEM, { filters: [{ dataSize: 1, memcmp: { offset: 0, bytes: 'a' } } as never] })],
    ['filter', (s) => s.getTokenAccountsByOwner(OWNER, {} as never)],
    ['filter.mint', (s) => s.getTokenAccountsByOwner(OWNER, { mint: 'x' })],
    ['blockhash', (s) => s.isBlockhashValid('x')],
    ['commitment', (s) => s.getSlot({ commitment: 'recent' as never })],
    ['minContextSlot', (s) => s.getBlockHeight({ minContextSlot: -1 })],
    ['addresses', (s) => s.getRecentPrioritizationFees(Array.from({ length: 129 }, () => OWNER))],
    ['message', (s) => s.getFeeForMessage('AQID')],
    ['message', (s) => s.getFeeForMessage('***')],
    ['dataLength', (s) => s.getMinimumBalanceForRentExemption(-1)],
    ['signatures', (s) => s.getSignatureStatuses(Array.from({ length: 257 }, () => SIG))],
    ['signatures.0', (s) => s.getSignatureStatuses([OWNER])],
    ['signature', (s) => s.getTransaction('x')],
    ['commitment', (s) => s.getTransaction(SIG, { commitment: 'processed' as never })],
    ['wireTransaction', (s) => s.simulateTransaction('AAAA')],
    ['sigVerify', (s) => s.simulateTransaction(WIRE, { sigVerify: true, replaceRecentBlockhash: true })],
  ];
  it.each(cases)('%s', async (field, call) => {
    const { requester, calls } = stub();
    const error = await rejection(call(createSolanaClient(requester)));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.context).toEqual({ field });
    expect(calls).toHaveLength(0);
  });
});

describe('getTransaction', () => {
  it('decodes base64 wire bytes and passes the client commitment unless it is processed', async () => {
    const wire = base64.decode(WIRE);
    const answer = { slot: 9, blockTime: 1_700_000_000, meta: null, transaction: [WIRE, 'base64'], version: 0 };
    const confirmed = answering(answer);
    const tx = await createSolanaClient(confirmed.requester, { commitment: 'confirmed' }).getTransaction(SIG, { encoding: 'base64' });
    expect(tx).toEqual({ slot: 9n, blockTime: 1_700_000_000n, meta: null, transaction: wire, version: 0 });
    expect(confirmed.calls[0]?.params).toEqual([SIG, { commitment: 'confirmed', encoding: 'base64', maxSupportedTransactionVersion: 0 }]);
    const processed = answering(null);
    await expect(createSolanaClient(processed.requester, { commitment: 'processed' }).getTransaction(SIG)).resolves.toBeNull();
    expect(processed.calls[0]?.params).toEqual([SIG, { encoding: 'json', maxSupportedTransactionVersion: 0 }]);
  });
});
