import { readdirSync, readFileSync } from 'node:fs';
import { isInteger, parse } from 'lossless-json';
import { describe, expect, it } from 'vitest';
import { TransportError } from '../../src/errors/transport-error.js';
import type { RpcRequester } from '../../src/api/request-options.js';
import { createEvmClient } from '../../src/evm/index.js';
import { createSolanaClient, solanaClusterOf } from '../../src/solana/index.js';
import { callTypedFixture, reviveExpected } from '../helpers/typed-fixture.js';

/** A requester that records calls and answers with `respond`. */
function stub(respond: () => unknown) {
  const calls: { method: string; params: readonly unknown[] }[] = [];
  const requester: RpcRequester = {
    async request(method, params) {
      calls.push({ method, params });
      return respond();
    },
  };
  return { requester, calls };
}

/** What the pool throws for a JSON-RPC error answer. */
function rpcError(rpcCode: number, rpcMessage: string, rpcData?: unknown): TransportError<'RPC_ERROR'> {
  const context = rpcData === undefined ? { rpcCode, rpcMessage } : { rpcCode, rpcMessage, rpcData };
  return new TransportError('RPC_ERROR', `node error ${rpcCode}`, { context });
}

// ---- recorded fixtures: every Solana success case, parsed with exact integers ----

interface Fixture {
  readonly name: string;
  readonly chain: string;
  readonly request: { readonly method: string; readonly params: readonly unknown[] };
  readonly response: { readonly body: string };
  readonly expect?: { readonly client?: string; readonly args?: unknown; readonly result?: unknown; readonly cluster?: string };
}

const FIXTURES = new URL('../../fixtures/', import.meta.url);
const exactNumber = (text: string): number | bigint =>
  isInteger(text) && !Number.isSafeInteger(Number(text)) ? BigInt(text) : Number(text);
const solanaFixtures = readdirSync(FIXTURES)
  .filter((file) => file.endsWith('.json'))
  .map((file) => JSON.parse(readFileSync(new URL(file, FIXTURES), 'utf8')) as Fixture)
  .filter((f) => f.chain === 'solana' && f.expect?.client !== undefined);

describe('recorded Solana fixtures', () => {
  it('cover every typed call', () => {
    const clients = new Set(solanaFixtures.map((f) => f.expect?.client));
    expect([...clients].sort()).toEqual([
      'getAccountInfo',
      'getBalance',
      'getBlockHeight',
      'getFeeForMessage',
      'getGenesisHash',
      'getHealth',
      'getLatestBlockhash',
      'getMinimumBalanceForRentExemption',
      'getMultipleAccounts',
      'getProgramAccounts',
      'getRecentPrioritizationFees',
      'getSignatureStatuses',
      'getSlot',
      'getTokenAccountBalance',
      'getTokenAccountsByOwner',
      'getTransaction',
      'getVersion',
      'isBlockhashValid',
      'sendTransaction',
      'simulateTransaction',
    ]);
  });

  it.each(solanaFixtures.map((f) => [f.name, f] as const))('%s gives the expected typed result', async (_, fixture) => {
    const body = parse(fixture.response.body, null, exactNumber) as {
      result?: unknown;
      error?: { code: number; message: string; data?: unknown };
    };
    const { requester, calls } = stub(() => {
      if (body.error !== undefined) throw rpcError(body.error.code, body.error.message, body.error.data);
      return body.result;
    });
    const result = await callTypedFixture(fixture, { sol: createSolanaClient(requester), evm: createEvmClient(requester) });
    expect(result).toEqual(reviveExpected(fixture.expect?.result));
    // The typed call sent exactly the recorded request.
    expect(calls).toEqual([{ method: fixture.request.method, params: fixture.request.params }]);
    if (fixture.expect?.cluster !== undefined) expect(solanaClusterOf(result as string)).toBe(fixture.expect.cluster);
  });
});
