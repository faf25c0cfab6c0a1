import { base58, base64 } from '@scure/base';
import { describe, expect, it } from 'vitest';
import { TransportError, type AttemptRecord } from '../../src/errors/transport-error.js';
import { createSolanaClient, solanaClusterOf, SOLANA_GENESIS_HASHES, U64_MAX } from '../../src/solana/index.js';
import { answering, rejection, stub } from '../helpers/stub-requester.js';

function failing(error: unknown) {
  return stub(() => {
    throw error;
  });
}

function rpcError(rpcCode: number, rpcMessage: string, rpcData?: unknown): TransportError<'RPC_ERROR'> {
  const context = rpcData === undefined ? { rpcCode, rpcMessage } : { rpcCode, rpcMessage, rpcData };
  return new TransportError('RPC_ERROR', `node error ${rpcCode}`, { context, method: 'getHealth', endpointId: 'a' });
}

function attempt(rpcCode: number | undefined): AttemptRecord {
  return { endpointId: 'a', cause: 'endpoint-rejected', dispatch: 'rejected', status: 200, rpcCode, durationMs: 3 };
}

const ADDRESS = '83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaoBRRS3w5a';
const SIGNATURE = Uint8Array.from({ length: 64 }, (_, i) => (i * 5 + 1) & 0xff);
const WIRE = Uint8Array.from([1, ...SIGNATURE, 1, 0, 1, 1, ...new Uint8Array(32), ...new Uint8Array(32), 0]);
const WIRE_SIGNATURE = base58.encode(SIGNATURE);

describe('getHealth', () => {
  it('is healthy when the node answers "ok", and passes request options through', async () => {
    const { requester, calls } = answering('ok');
    const options = { timeoutMs: 500, endpoint: 'helius' };
    await expect(createSolanaClient(requester).getHealth(options)).resolves.toEqual({ healthy: true });
    expect(calls).toEqual([{ method: 'getHealth', params: [], options }]);
  });

  it('answers "behind by N slots" (-32005) instead of throwing', async () => {
    const { requester } = failing(rpcError(-32005, 'Node is behind by 42 slots', { numSlotsBehind: 42 }));
    await expect(createSolanaClient(requester).getHealth()).resolves.toEqual({
      healthy: false,
      numSlotsBehind: 42,
      message: 'Node is behind by 42 slots',
    });
  });

  it('answers "unhealthy" without numSlotsBehind when the node reports null', async () => {
    const { requester } = failing(rpcError(-32005, 'Node is unhealthy', { numSlotsBehind: null }));
    const health = await createSolanaClient(requester).getHealth();
    expect(health).toEqual({ healthy: false, message: 'Node is unhealthy' });
    expect('numSlotsBehind' in health).toBe(false);
  });

  it('answers unhealthy when the pool gave up after a last attempt refused with -32005', async () => {
    const exhausted = new TransportError('RETRIES_EXHAUSTED', 'gave up', {
      context: { lastCause: 'endpoint-rejected' },
      attempts: [attempt(undefined), attempt(-32005)],
    });
    await expect(createSolanaClient(failing(exhausted).requester).getHealth()).resolves.toEqual({
      healthy: false,
      message: 'Node is unhealthy',
    });
  });

  it('reads message and data from an RPC_ERROR in the cause chain', async () => {
    const exhausted = new TransportError('RETRIES_EXHAUSTED', 'gave up', {
      context: { lastCause: 'endpoint-rejected' },
      attempts: [attempt(-32005)],
      cause: rpcError(-32005, 'Node is behind by 7 slots', { numSlotsBehind: 7 }),
    });
    await expect(createSolanaClient(failing(exhausted).requester).getHealth()).resolves.toEqual({
      healthy: false,
      numSlotsBehind: 7,
      message: 'Node is behind by 7 slots',
    });
  });

  it('rethrows every other failure', async () => {
    const other = rpcError(-32603, 'Internal error');
    await expect(createSolanaClient(failing(other).requester).getHealth()).rejects.toBe(other);
    const deadline = new TransportError('DEADLINE_EXCEEDED', 'late', { context: { timeoutMs: 10 } });
    await expect(createSolanaClient(failing(deadline).requester).getHealth()).rejects.toBe(deadline);
    const plain = new Error('boom');
    await expect(createSolanaClient(failing(plain).requester).getHealth()).rejects.toBe(plain);
  });

  it('rejects a result other than "ok" as INVALID_RESPONSE', async () => {
    const error = await rejection(createSolanaClient(answering('okay').requester).getHealth());
    expect(error.code).toBe('INVALID_RESPONSE');
    expect(error.context).toEqual({ reason: 'result: invalid_value' });
  });
});

describe('getVersion', () => {
  it('maps solana-core and feature-set', async () => {
    const client = createSolanaClient(answering({ 'solana-core': '2.2.1', 'feature-set': 3_294_202_862 }).requester);
    await expect(client.getVersion()).resolves.toEqual({ solanaCore: '2.2.1', featureSet: 3_294_202_862 });
  });

  it('omits featureSet when the node reports none or null', async () => {
    await expect(createSolanaClient(answering({ 'solana-core': '2.2.1' }).requester).getVersion()).resolves.toEqual({
      solanaCore: '2.2.1',
    });
    const withNull = answering({ 'solana-core': '2.2.1', 'feature-set': null });
    await expect(createSolanaClient(withNull.requester).getVersion()).resolves.toEqual({ solanaCore: '2.2.1' });
  });

  it('rejects a missing solana-core as INVALID_RESPONSE naming the field', async () => {
    const error = await rejection(createSolanaClient(answering({ version: '2.2.1' }).requester).getVersion());
    expect(error.code).toBe('INVALID_RESPONSE');
    expect(error.context).toEqual({ reason: 'solana-core: invalid_type' });
  });
});

describe('getGenesisHash and solanaClusterOf', () => {
  it.each(Object.entries(SOLANA_GENESIS_HASHES))('recognises %s by its genesis hash', async (cluster, hash) => {
    const genesis = await createSolanaClient(answering(hash).requester).getGenesisHash();
    expect(genesis).toBe(hash);
    expect(solanaClusterOf(genesis)).toBe(cluster);
  });

  it('names no cluster for another chain', () => {
    expect(solanaClusterOf(base58.encode(new Uint8Array(32).fill(9)))).toBeUndefined();
  });

  it('rejects a hash that is not base58 of 32 bytes', async () => {
    for (const bad of [base58.encode(new Uint8Array(31).fill(1)), 'not-base58-0OIl', 42]) {
      const error = await rejection(createSolanaClient(answering(bad).requester).getGenesisHash());
      expect(error.code).toBe('INVALID_RESPONSE');
    }
  });
});

describe('getBalance', () => {
  it('returns u64::MAX exactly', async () => {
    const client = createSolanaClient(answering({ context: { slot: 341_197_053 }, value: U64_MAX }).requester);
    const balance = await client.getBalance(ADDRESS);
    expect(balance).toEqual({ slot: 341_197_053n, value: 18_446_744_073_709_551_615n });
  });

  it('accepts safe-integer numbers and exact bigints just above 2^53', async () => {
    const result = { context: { slot: 5n, apiVersion: '2.2.1' }, value: 9_007_199_254_740_993n };
    await expect(createSolanaClient(answering(result).requester).getBalance(ADDRESS)).resolves.toEqual({
      slot: 5n,
      value: 9_007_199_254_740_993n,
    });
    const small = { context: { slot: 1 }, value: 2_039_280 };
    await expect(createSolanaClient(answering(small).requester).getBalance(ADDRESS)).resolves.toEqual({
      slot: 1n,
      value: 2_039_280n,
    });
  });

  it.each([
    ['a negative value', -1, 'value: too_small'],
    ['a non-integer', 1.5, 'value: invalid_union'],
    ['a value above u64::MAX', U64_MAX + 1n, 'value: too_big'],
    ['an unsafe number that may have lost precision', 2 ** 60, 'value: too_big'],
    ['a string', '1000', 'value: invalid_union'],
  ])('rejects %s as INVALID_RESPONSE without echoing it', async (_, value, reason) => {
    const error = await rejection(
      createSolanaClient(answering({ context: { slot: 1 }, value }).requester).getBalance(ADDRESS),
    );
    expect(error.code).toBe('INVALID_RESPONSE');
    expect(error.context).toEqual({ reason });
    expect(error.message).not.toContain(String(value));
  });

  it('sends the commitment from the client defaults, overridable per call, and minContextSlot as a number', async () => {
    const { requester, calls } = answering({ context: { slot: 1 }, value: 0 });
    const client = createSolanaClient(requester, { commitment: 'confirmed' });
    await client.getBalance(ADDRESS);
    await client.getBalance(ADDRESS, { commitment: 'finalized', minContextSlot: 300n }, { timeoutMs: 250 });
    expect(calls).toEqual([
      { method: 'getBalance', params: [ADDRESS, { commitment: 'confirmed' }], options: undefined },
      {
        method: 'getBalance',
        params: [ADDRESS, { commitment: 'finalized', minContextSlot: 300 }],
        options: { timeoutMs: 250 },
      },
    ]);
    await createSolanaClient(requester).getBalance(ADDRESS);
    expect(calls.at(-1)?.params).toEqual([ADDRESS]);
  });

  it.each([
    ['an empty string', ''],
    ['characters outside base58', '0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl'],
    ['31 bytes', base58.encode(new Uint8Array(31).fill(7))],
    ['33 bytes', base58.encode(new Uint8Array(33).fill(7))],
    ['a hex EVM address', '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'],
    ['a non-string', 12345 as unknown as string],
  ])('sends nothing and throws INVALID_INPUT for an address that is %s', async (_, address) => {
    const { requester, calls } = answering({ context: { slot: 1 }, value: 0 });
    const error = await rejection(createSolanaClient(requester).getBalance(address));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.context).toEqual({ field: 'address' });
    expect(calls).toHaveLength(0);
  });

  it('sends nothing for an invalid commitment or minContextSlot', async () => {
    const { requester, calls } = answering({ context: { slot: 1 }, value: 0 });
    const client = createSolanaClient(requester);
    const bad = { commitment: 'max' } as unknown as { commitment: 'confirmed' };
    expect((await rejection(client.getBalance(ADDRESS, bad))).context).toEqual({ field: 'commitment' });
    expect((await rejection(client.getBalance(ADDRESS, { minContextSlot: -1 }))).context).toEqual({
      field: 'minContextSlot',
    });
    expect(calls).toHaveLength(0);
  });
});

describe('sendTransaction', () => {
  it('sends base64 by default, with the encoding explicit, and returns the signature', async () => {
    const { requester, calls } = answering(WIRE_SIGNATURE);
    const wireTx = base64.encode(WIRE);
    const options = { signal: new AbortController().signal };
    await expect(createSolanaClient(requester).sendTransaction(wireTx, { skipPreflight: true }, options)).resolves.toBe(
      WIRE_SIGNATURE,
    );
    expect(calls).toEqual([
      { method: 'sendTransaction', params: [wireTx, { encoding: 'base64', skipPreflight: true }], options },
    ]);
  });

  it('sends base58 when asked, with every option', async () => {
    const { requester, calls } = answering(WIRE_SIGNATURE);
    const wireTx = base58.encode(WIRE);
    const parameters = {
      encoding: 'base58',
      preflightCommitment: 'processed',
      maxRetries: 0,
      minContextSlot: 10n,
    } as const;
    await createSolanaClient(requester).sendTransaction(wireTx, parameters);
    expect(calls[0]?.params).toEqual([
      wireTx,
      { encoding: 'base58', preflightCommitment: 'processed', maxRetries: 0, minContextSlot: 10 },
    ]);
  });

  it.each([
    ['text that is not base64', 'not base64!'],
    ['zero signatures', base64.encode(Uint8Array.from([0, 1, 2, 3]))],
    ['a signature without a message', base64.encode(WIRE.subarray(0, 65))],
    ['an empty string', ''],
  ])('sends nothing and throws INVALID_INPUT for %s', async (_, wireTx) => {
    const { requester, calls } = answering(WIRE_SIGNATURE);
    const error = await rejection(createSolanaClient(requester).sendTransaction(wireTx));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.context).toEqual({ field: 'wireTransaction' });
    expect(calls).toHaveLength(0);
  });

  it('rejects a node answer that is not the transaction’s signature', async () => {
    const other = base58.encode(new Uint8Array(64).fill(3));
    const error = await rejection(createSolanaClient(answering(other).requester).sendTransaction(base64.encode(WIRE)));
    expect(error.code).toBe('INVALID_RESPONSE');
    expect(error.context).toEqual({ reason: 'result: signature-mismatch' });
  });
});
