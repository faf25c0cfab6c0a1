import { readdirSync, readFileSync } from 'node:fs';
import { isInteger, parse } from 'lossless-json';
import { describe, expect, it } from 'vitest';
import { TransportError } from '../../src/errors/transport-error.js';
import type { RpcRequester } from '../../src/pool/request-options.js';
import { createSolanaClient, solanaClusterOf } from '../../src/solana/index.js';

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
  readonly expect?: { readonly client?: string; readonly result?: unknown; readonly cluster?: string };
}

const FIXTURES = new URL('../../fixtures/', import.meta.url);
const exactNumber = (text: string): number | bigint =>
  isInteger(text) && !Number.isSafeInteger(Number(text)) ? BigInt(text) : Number(text);
const revive = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value), (_, v: unknown) =>
    typeof v === 'object' && v !== null && '$bigint' in v ? BigInt((v as { $bigint: string }).$bigint) : v,
  );
const solanaFixtures = readdirSync(FIXTURES)
  .filter((file) => file.endsWith('.json'))
  .map((file) => JSON.parse(readFileSync(new URL(file, FIXTURES), 'utf8')) as Fixture)
  .filter((f) => f.chain === 'solana' && f.expect?.client !== undefined);

describe('recorded Solana fixtures', () => {
  it('cover every typed call', () => {
    const clients = new Set(solanaFixtures.map((f) => f.expect?.client));
    expect([...clients].sort()).toEqual(['getBalance', 'getGenesisHash', 'getHealth', 'getVersion', 'sendTransaction']);
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
    const client = createSolanaClient(requester) as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const params = fixture.request.params;
    const config = params[1] as Record<string, unknown> | undefined;
    const call = client[fixture.expect?.client ?? ''];
    const args = params.length === 0 ? [] : config === undefined ? [params[0]] : [params[0], config];
    const result = await call?.(...args);
    expect(result).toEqual(revive(fixture.expect?.result));
    expect(calls[0]?.method).toBe(fixture.request.method);
    if (fixture.expect?.cluster !== undefined) expect(solanaClusterOf(result as string)).toBe(fixture.expect.cluster);
  });
});
