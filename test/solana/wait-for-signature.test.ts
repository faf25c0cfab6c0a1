import { base58, base64 } from '@scure/base';
import { describe, expect, it } from 'vitest';
import { TransportError } from '../../src/errors/transport-error.js';
import type { RpcRequester } from '../../src/api/request-options.js';
import { sleep } from '../../src/clock.js';
import { blockhashFromWireBytes, createSolanaClient, sendAndConfirm, waitForSignature } from '../../src/solana/index.js';
import { createFakeClock, type FakeClock } from '../../src/testing/index.js';
import { loadFixture } from '../helpers/loopback.js';
import { rejection } from '../helpers/stub-requester.js';

/**
 * waitForSignature / sendAndConfirm against a scripted node on a fake clock: what the
 * caller gets (confirmed / expired / unknown), what the node is asked and when.
 */

const WIRE = loadFixture('solana-sendTransaction').request.params[0] as string;
const SIGNATURE = loadFixture('solana-sendTransaction').expect?.['signature'] as string;
/** The fixture's message: 1 signature, header 1/0/1, 3 keys, then the blockhash. */
const WIRE_BLOCKHASH = base58.encode(base64.decode(WIRE).subarray(1 + 64 + 3 + 1 + 3 * 32, 1 + 64 + 3 + 1 + 4 * 32));

interface Status {
  slot: number;
  confirmations: number | null;
  err: unknown;
  confirmationStatus: 'processed' | 'confirmed' | 'finalized';
}

type Script = Partial<Record<string, (n: number, params: readonly unknown[], operator: string) => unknown>>;

/**
 * A scripted requester: each method answers from a function of the call number (per method,
 * over every operator), the params and the operator asked. It answers `requestWithOrigin`
 * as the first of `operators` not excluded, so proofs that need two operators can be made.
 */
function scriptedNode(clock: FakeClock, script: Script, operators: readonly string[] = ['op-a', 'op-b']) {
  const calls: { method: string; params: readonly unknown[]; atMs: number; operator: string | undefined }[] = [];
  const counts = new Map<string, number>();
  const answer = (method: string, params: readonly unknown[], operator: string | undefined) => {
    calls.push({ method, params, atMs: clock.now(), operator });
    const n = (counts.get(method) ?? 0) + 1;
    counts.set(method, n);
    const respond = script[method];
    if (respond === undefined) throw new Error(`unexpected ${method}`);
    return respond(n, params, operator ?? operators[0]!);
  };
  const requester: RpcRequester = {
    async request(method, params) {
      return answer(method, params, undefined);
    },
    async requestWithOrigin(method, params, options) {
      const operator = operators.find((candidate) => !(options?.excludeOperators ?? []).includes(candidate));
      if (operator === undefined) throw new TransportError('NO_ENDPOINT', 'no other operator', { context: { kind: 'read' } });
      return { value: await answer(method, params, operator), endpointId: `${operator}-0`, operator };
    },
  };
  const times = (method: string) => calls.filter((c) => c.method === method).map((c) => c.atMs);
  return { requester, calls, times };
}

const statuses = (status: Status | null, slot = 100) => ({ context: { slot }, value: [status] });
const status = (confirmationStatus: Status['confirmationStatus'], err: unknown = null): Status => ({
  slot: 90,
  confirmations: confirmationStatus === 'finalized' ? null : 1,
  err,
  confirmationStatus,
});

/** Runs `promise` while advancing the fake clock in steps of `stepMs` until it settles (bounded). */
async function settle<T>(clock: FakeClock, promise: Promise<T>, stepMs = 100, maxSteps = 5_000): Promise<T> {
  let done = false;
  const tracked = promise.finally(() => {
    done = true;
  });
  for (let i = 0; i < maxSteps && !done; i++) await clock.advance(stepMs);
  return tracked;
}

describe('waitForSignature', () => {
  it('polls on a growing interval until the commitment is reached', async () => {
    const clock = createFakeClock();
    const node = scriptedNode(clock, {
      getSignatureStatuses: (n) => statuses(n <= 2 ? null : n === 3 ? status('processed') : status('confirmed')),
    });
    const outcome = await settle(clock, waitForSignature(node.requester, SIGNATURE, { clock, commitment: 'confirmed' }), 50);
    expect(outcome).toEqual({ status: 'confirmed', signature: SIGNATURE, slot: 90n, err: null, confirmationStatus: 'confirmed' });
    // 400 ms, then ×1.5: polls at 0, 400, 1000, 1900.
    expect(node.times('getSignatureStatuses')).toEqual([0, 400, 1000, 1900]);
    expect(node.calls[0]?.params).toEqual([[SIGNATURE]]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('reports a transaction that landed and failed as confirmed with its err (it must not be re-signed)', async () => {
    const clock = createFakeClock();
    const failed = { InstructionError: [0, { Custom: 1 }] };
    const node = scriptedNode(clock, { getSignatureStatuses: () => statuses(status('finalized', failed)) });
    await expect(waitForSignature(node.requester, SIGNATURE, { clock, commitment: 'finalized' })).resolves.toEqual({
      status: 'confirmed',
      signature: SIGNATURE,
      slot: 90n,
      err: failed,
      confirmationStatus: 'finalized',
    });
  });

  it('is expired once the finalized block height passes lastValidBlockHeight and a history search does not find it', async () => {
    const clock = createFakeClock();
    const node = scriptedNode(clock, {
      getSignatureStatuses: () => statuses(null, 2_000),
      getEpochInfo: (n) => ({ blockHeight: 1_000 + n, absoluteSlot: 1_100 + n, epoch: 1, slotIndex: 0, slotsInEpoch: 432_000 }),
    });
    const outcome = await settle(clock, waitForSignature(node.requester, SIGNATURE, { clock, lastValidBlockHeight: 1_002 }));
    // Round 1: 1 001 and 1 002 (not past); round 2: 1 003 and 1 004, both past: the lower one is the proof.
    expect(outcome).toEqual({ status: 'expired', signature: SIGNATURE, reason: 'block-height-exceeded', slot: 1_103n, blockHeight: 1_003n });
    expect(node.calls.filter((c) => c.method === 'getEpochInfo').map((c) => [c.operator, c.params])).toEqual([
      ['op-a', [{ commitment: 'finalized' }]],
      ['op-b', [{ commitment: 'finalized' }]],
      ['op-a', [{ commitment: 'finalized' }]],
      ['op-b', [{ commitment: 'finalized' }]],
    ]);
    // The last looks searched the whole history, on both operators, before calling it expired.
    expect(node.calls.slice(-2).map((c) => [c.method, c.operator, c.params])).toEqual([
      ['getSignatureStatuses', 'op-a', [[SIGNATURE], { searchTransactionHistory: true }]],
      ['getSignatureStatuses', 'op-b', [[SIGNATURE], { searchTransactionHistory: true }]],
    ]);
  });

  it('is confirmed, not expired, when the history search finds it landed just in time', async () => {
    const clock = createFakeClock();
    const node = scriptedNode(clock, {
      getSignatureStatuses: (_, params) => statuses(params[1] === undefined ? null : status('finalized')),
      getEpochInfo: () => ({ blockHeight: 2_000, absoluteSlot: 2_100 }),
    });
    const outcome = await settle(clock, waitForSignature(node.requester, SIGNATURE, { clock, lastValidBlockHeight: 1_000 }));
    expect(outcome.status).toBe('confirmed');
  });

  it('does not trust a block height above the slot (a provider answering with something else)', async () => {
    const clock = createFakeClock();
    const node = scriptedNode(clock, {
      getSignatureStatuses: () => statuses(null),
      getEpochInfo: () => ({ blockHeight: 5_000, absoluteSlot: 4_000 }),
    });
    const outcome = await settle(clock, waitForSignature(node.requester, SIGNATURE, { clock, lastValidBlockHeight: 1_000, timeoutMs: 3_000 }));
    expect(outcome).toEqual({ status: 'unknown', signature: SIGNATURE, lastStatus: null });
  });

  it('proves expiry from the blockhash only when a finalized bank at a higher slot stops knowing a blockhash it knew', async () => {
    const clock = createFakeClock();
    // Rounds of two operators' answers: too new (false @5), valid (true @10), a lagging node
    // (false @9: ignored), one operator's false (@12, the other still true @11), then expired (false @12 and @13).
    const answers = [
      [5, false], [5, false],
      [10, true], [10, true],
      [9, false], [9, false],
      [12, false], [11, true],
      [12, false], [13, false],
    ] as const;
    const node = scriptedNode(clock, {
      getSignatureStatuses: () => statuses(null),
      isBlockhashValid: (n) => {
        const [slot, value] = answers[Math.min(n, answers.length) - 1] ?? [0, false];
        return { context: { slot }, value };
      },
    });
    const outcome = await settle(clock, waitForSignature(node.requester, SIGNATURE, { clock, blockhash: WIRE_BLOCKHASH }));
    expect(outcome).toEqual({ status: 'expired', signature: SIGNATURE, reason: 'blockhash-expired', slot: 12n });
    expect(node.calls.filter((c) => c.method === 'isBlockhashValid')).toHaveLength(10);
    expect(node.calls.find((c) => c.method === 'isBlockhashValid')?.params).toEqual([WIRE_BLOCKHASH, { commitment: 'finalized' }]);
  });

  it('never calls a blockhash that was never seen valid expired (too new, or a durable nonce): unknown at the deadline', async () => {
    const clock = createFakeClock();
    const node = scriptedNode(clock, {
      getSignatureStatuses: () => statuses(null),
      isBlockhashValid: (n) => ({ context: { slot: n * 10 }, value: false }),
    });
    const outcome = await settle(clock, waitForSignature(node.requester, SIGNATURE, { clock, blockhash: WIRE_BLOCKHASH, timeoutMs: 10_000 }));
    expect(outcome).toEqual({ status: 'unknown', signature: SIGNATURE, lastStatus: null });
    expect(Math.max(...node.calls.map((c) => c.atMs))).toBeLessThan(10_000);
    expect(clock.pendingTimers).toBe(0);
  });

  it('reports the last status seen and the last failed poll when the deadline comes first, polling through failures', async () => {
    const clock = createFakeClock();
    const limited = new TransportError('RATE_LIMITED', 'slow down', { context: {} });
    const node = scriptedNode(clock, {
      getSignatureStatuses: (n) => {
        if (n === 1) return statuses(status('processed'));
        throw limited;
      },
    });
    const outcome = await settle(clock, waitForSignature(node.requester, SIGNATURE, { clock, timeoutMs: 5_000 }));
    expect(outcome).toEqual({ status: 'unknown', signature: SIGNATURE, lastStatus: { slot: 90n, confirmations: 1, err: null, confirmationStatus: 'processed' }, lastError: limited });
    expect(node.times('getSignatureStatuses').length).toBeGreaterThan(3);
  });

  it('gives every call only what is left of the one deadline', async () => {
    const clock = createFakeClock();
    const seen: (number | undefined)[] = [];
    const requester: RpcRequester = {
      async request(_, __, options) {
        seen.push(options?.timeoutMs);
        return statuses(null);
      },
    };
    await settle(clock, waitForSignature(requester, SIGNATURE, { clock, timeoutMs: 1_000 }));
    // Polls at 0 and 400 ms; the next would be at 1 000 ms, the deadline itself: no call then.
    expect(seen).toEqual([1_000, 600]);
  });

  it('starts no call after the deadline, even in the middle of a round', async () => {
    const clock = createFakeClock();
    const seen: { method: string; timeoutMs: number | undefined }[] = [];
    const requester: RpcRequester = {
      async request(method, _, options) {
        seen.push({ method, timeoutMs: options?.timeoutMs });
        // The status poll is slow: it answers after the whole wait's deadline.
        if (method === 'getSignatureStatuses') await sleep(clock, 1_500);
        return method === 'getSignatureStatuses' ? statuses(null) : { blockHeight: 1, absoluteSlot: 2 };
      },
      async requestWithOrigin(method, params, options) {
        return { value: await this.request(method, params, options), endpointId: 'a-0', operator: 'a' };
      },
    };
    const outcome = await settle(clock, waitForSignature(requester, SIGNATURE, { clock, timeoutMs: 1_000, lastValidBlockHeight: 10 }));
    expect(seen).toEqual([{ method: 'getSignatureStatuses', timeoutMs: 1_000 }]);
    expect(outcome).toMatchObject({ status: 'unknown', lastError: { code: 'DEADLINE_EXCEEDED', context: { timeoutMs: 1_000 } } });
  });

  it('ends with ABORTED when the caller aborts, and leaves no timer', async () => {
    const clock = createFakeClock();
    const node = scriptedNode(clock, { getSignatureStatuses: () => statuses(null) });
    const controller = new AbortController();
    const pending = waitForSignature(node.requester, SIGNATURE, { clock, signal: controller.signal });
    await clock.advance(500);
    controller.abort();
    const error = await rejection(pending);
    expect(error.code).toBe('ABORTED');
    expect(clock.pendingTimers).toBe(0);
  });

  it.each([
    ['signature', () => waitForSignature(scriptedNode(createFakeClock(), {}).requester, 'x')],
    ['commitment', () => waitForSignature(scriptedNode(createFakeClock(), {}).requester, SIGNATURE, { commitment: 'max' as never })],
    ['timeoutMs', () => waitForSignature(scriptedNode(createFakeClock(), {}).requester, SIGNATURE, { timeoutMs: 0 })],
    ['lastValidBlockHeight', () => waitForSignature(scriptedNode(createFakeClock(), {}).requester, SIGNATURE, { lastValidBlockHeight: -1 })],
    ['blockhash', () => waitForSignature(scriptedNode(createFakeClock(), {}).requester, SIGNATURE, { blockhash: 'x' })],
    ['poll.factor', () => waitForSignature(scriptedNode(createFakeClock(), {}).requester, SIGNATURE, { poll: { factor: 0.5 } })],
  ])('rejects a bad %s before asking anything', async (field, call) => {
    const error = await rejection(call());
    expect(error).toMatchObject({ code: 'INVALID_INPUT', context: { field } });
  });
});

describe('sendAndConfirm', () => {
  it('reads the blockhash from a legacy and a v0 wire message', () => {
    const legacy = base64.decode(WIRE);
    expect(blockhashFromWireBytes(legacy)).toBe(WIRE_BLOCKHASH);
    const v0 = Uint8Array.from([...legacy.subarray(0, 65), 0x80, ...legacy.subarray(65)]);
    expect(blockhashFromWireBytes(v0)).toBe(WIRE_BLOCKHASH);
    expect(blockhashFromWireBytes(legacy.subarray(0, 150))).toBeUndefined();
  });

  it('sends once, then waits with the blockhash from the wire message', async () => {
    const clock = createFakeClock();
    const node = scriptedNode(clock, {
      sendTransaction: () => SIGNATURE,
      getSignatureStatuses: (n) => statuses(n < 2 ? null : status('confirmed')),
      isBlockhashValid: () => ({ context: { slot: 1 }, value: true }),
    });
    const outcome = await settle(clock, createSolanaClient(node.requester, { clock }).sendAndConfirm(WIRE), 50);
    expect(outcome).toEqual({ status: 'confirmed', signature: SIGNATURE, slot: 90n, err: null, confirmationStatus: 'confirmed', dispatch: 'acknowledged' });
    expect(node.calls.map((c) => c.method)).toEqual(['sendTransaction', 'getSignatureStatuses', 'isBlockhashValid', 'isBlockhashValid', 'getSignatureStatuses']);
    expect(node.calls[0]?.params).toEqual([WIRE, { encoding: 'base64' }]);
    expect(node.calls[2]?.params).toEqual([WIRE_BLOCKHASH, { commitment: 'finalized' }]);
  });

  it('never resends after an ambiguous dispatch: it waits for the signature from the error', async () => {
    const clock = createFakeClock();
    const ambiguous = new TransportError('AMBIGUOUS_DISPATCH', 'lost', { context: { signature: SIGNATURE } });
    const node = scriptedNode(clock, {
      sendTransaction: () => {
        throw ambiguous;
      },
      getSignatureStatuses: () => statuses(status('finalized')),
    });
    const outcome = await sendAndConfirm(node.requester, WIRE, { clock, commitment: 'finalized', lastValidBlockHeight: 10 });
    expect(outcome).toMatchObject({ status: 'confirmed', dispatch: 'ambiguous', signature: SIGNATURE });
    expect(node.calls.filter((c) => c.method === 'sendTransaction')).toHaveLength(1);
  });

  it('waits out an ambiguous send that never lands: expired, so re-signing is safe', async () => {
    const clock = createFakeClock();
    const node = scriptedNode(clock, {
      sendTransaction: () => {
        throw new TransportError('AMBIGUOUS_DISPATCH', 'lost', { context: { signature: SIGNATURE } });
      },
      getSignatureStatuses: () => statuses(null, 300),
      getEpochInfo: (n) => ({ blockHeight: 98 + n, absoluteSlot: 200 + n }),
    });
    const outcome = await settle(clock, sendAndConfirm(node.requester, WIRE, { clock, lastValidBlockHeight: 100 }));
    expect(outcome).toMatchObject({ status: 'expired', reason: 'block-height-exceeded', dispatch: 'ambiguous' });
    expect(node.calls.filter((c) => c.method === 'sendTransaction')).toHaveLength(1);
  });

  it('throws a definitive refusal (preflight failure) without waiting: nothing landed', async () => {
    const clock = createFakeClock();
    const preflight = new TransportError('RPC_ERROR', 'preflight', { context: { rpcCode: -32002, rpcMessage: 'Transaction simulation failed' } });
    const node = scriptedNode(clock, {
      sendTransaction: () => {
        throw preflight;
      },
    });
    await expect(sendAndConfirm(node.requester, WIRE, { clock })).rejects.toBe(preflight);
    expect(node.calls.map((c) => c.method)).toEqual(['sendTransaction']);
  });

  it('sends nothing for a bad wire transaction or bad options', async () => {
    const clock = createFakeClock();
    const node = scriptedNode(clock, {});
    const truncated = base64.encode(base64.decode(WIRE).subarray(0, 120));
    await expect(sendAndConfirm(node.requester, truncated, { clock })).rejects.toMatchObject({ code: 'INVALID_INPUT', context: { field: 'wireTransaction' } });
    await expect(sendAndConfirm(node.requester, WIRE, { clock, commitment: 'rooted' as never })).rejects.toMatchObject({ code: 'INVALID_INPUT', context: { field: 'commitment' } });
    await expect(sendAndConfirm(node.requester, WIRE, { clock, send: { maxRetries: -1 } })).rejects.toMatchObject({ code: 'INVALID_INPUT', context: { field: 'maxRetries' } });
    expect(node.calls).toHaveLength(0);
  });
});
