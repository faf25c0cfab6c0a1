import { describe, expect, expectTypeOf, it } from 'vitest';
import { createSolanaClient, type AccountData, type AccountEncoding, type AccountInfo } from '../../src/solana/index.js';
import { answering, rejection } from '../helpers/stub-requester.js';

/**
 * The account reads are overloaded by `encoding`: without one (or with `base64`) `data` is a
 * `Uint8Array`, so `data.length` type-checks (`npm run typecheck` compiles this file), and the
 * pool holds the node to it; with `jsonParsed`, `data` is bytes or the node's parse.
 */

const OWNER = '83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaoBRRS3w5a';
const SYSTEM = '11111111111111111111111111111111';
const ctx = { context: { slot: 5 } };
const account = (data: unknown) => ({ data, executable: false, lamports: 1, owner: SYSTEM, rentEpoch: 0 });
const PARSED = { program: 'spl-token', parsed: { type: 'mint' }, space: 82 };

describe('account reads by encoding', () => {
  it('without an encoding, getAccountInfo data is bytes: data.length type-checks and is the decoded length', async () => {
    const { requester, calls } = answering({ ...ctx, value: account(['AQID', 'base64']) });
    const { value } = await createSolanaClient(requester).getAccountInfo(OWNER);
    expectTypeOf(value).toEqualTypeOf<AccountInfo<Uint8Array> | null>();
    const length: number | undefined = value?.data.length;
    expect(length).toBe(3);
    expect(calls[0]?.params).toEqual([OWNER, { encoding: 'base64' }]);
  });

  it("with encoding 'base64' every read's data is bytes, in its type too", async () => {
    const sol = createSolanaClient(answering({ ...ctx, value: [account(['AQID', 'base64'])] }).requester);
    const many = await sol.getMultipleAccounts([OWNER], { encoding: 'base64' });
    expectTypeOf(many.value[0]!.data).toEqualTypeOf<Uint8Array>();
    expect(many.value[0]?.data.length).toBe(3);
    const keyed = createSolanaClient(answering({ ...ctx, value: [{ pubkey: OWNER, account: account(['AQID', 'base64']) }] }).requester);
    const program = await keyed.getProgramAccounts(SYSTEM, { filters: [{ dataSize: 3 }] });
    expectTypeOf(program.value[0]!.account.data).toEqualTypeOf<Uint8Array>();
    const tokens = await keyed.getTokenAccountsByOwner(OWNER, { mint: SYSTEM });
    expect(tokens.value[0]?.account.data.length).toBe(3);
  });

  it("with 'jsonParsed', or an encoding known only at run time, data is bytes or the node's parse", async () => {
    const sol = createSolanaClient(answering({ ...ctx, value: account(PARSED) }).requester);
    const parsed = await sol.getAccountInfo(OWNER, { encoding: 'jsonParsed' });
    expectTypeOf(parsed.value!.data).toEqualTypeOf<AccountData>();
    expect(parsed.value?.data).toEqual({ program: 'spl-token', parsed: { type: 'mint' }, space: 82n });
    const encoding = 'jsonParsed' as AccountEncoding;
    const either = await sol.getAccountInfo(OWNER, { encoding });
    expectTypeOf(either.value!.data).toEqualTypeOf<AccountData>();
  });

  it('asked for base64, a parsed object from the node is INVALID_RESPONSE (the bytes the types promise are never something else)', async () => {
    const error = await rejection(createSolanaClient(answering({ ...ctx, value: account(PARSED) }).requester).getAccountInfo(OWNER));
    expect(error.code).toBe('INVALID_RESPONSE');
    expect(error.method).toBe('getAccountInfo');
    expect(String(error.context?.['reason' as never])).toMatch(/^value\.data/);
  });
});
