import { keccak256 as ethersKeccak256 } from 'ethers';
import { keccak256 as viemKeccak256 } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterEach, describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/clock.js';
import type { EndpointConfig, HttpTransportPoolOptions } from '../../src/config/types.js';
import { isTransportError, TransportError } from '../../src/errors/transport-error.js';
import type { RawOutcome } from '../../src/http/executor.js';
import type { ReconcileEvent } from '../../src/api/events.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { createFakeClock, type FakeClock } from '../../src/testing/fake-clock.js';
import { loadFixture } from '../helpers/loopback.js';
import { closePools, createPool } from '../helpers/pools.js';
import { createScriptedExecutor, hangUntilAborted, ok, type Script } from '../helpers/scripted-executor.js';
import { track } from './pool-fixtures.js';
import { signatureOf, wireTransaction } from '../helpers/solana-wire.js';

/**
 * `reconcileSends`: after a send ends ambiguous, the pool looks the transaction up with
 * reads (never sending it again) and resolves with its id when a lookup finds it. All on a
 * fake clock with a scripted executor: nothing touches the network or real time.
 */

afterEach(closePools);

// ---------------------------------------------------------------------------------------
// Transactions


const SOL_TX = wireTransaction(7);
const SOL_SIGNATURE = signatureOf(SOL_TX);
const SOL_PARAMS = [SOL_TX, { encoding: 'base64' }];

/** Recorded from anvil 1.7.1: a signed transfer and the hash anvil answered for it. */
const RECORDED = loadFixture('evm-eth_sendRawTransaction');
const RECORDED_RAW_TX = RECORDED.request.params[0] as string;
const RECORDED_HASH = RECORDED.expect?.['result'] as string;

const ANVIL_KEY_0 = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

/** An EIP-1559 transfer signed locally with viem (never sent anywhere real). */
function signedEvmTransaction(nonce: number): Promise<`0x${string}`> {
  return privateKeyToAccount(ANVIL_KEY_0).signTransaction({
    chainId: 31_337,
    to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    value: 10n ** 18n,
    nonce,
    gas: 21_000n,
    maxFeePerGas: 2_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
  });
}

// ---------------------------------------------------------------------------------------
// Scripted answers

const socketAfterWrite: RawOutcome = { type: 'error', kind: 'socket', dispatched: true, code: 'ECONNRESET' };
const html502: RawOutcome = { type: 'response', status: 502, headers: { 'content-type': 'text/html' }, body: '<html>502 Bad Gateway</html>' };
const http500: RawOutcome = { type: 'response', status: 500, headers: {}, body: 'Internal Server Error' };
/** Never answers until the pool aborts the attempt. */
const statusesNotFound: Script = (_r, id) => ok({ context: { slot: 10 }, value: [null] }, id);
const statusesFound: Script = (_r, id) =>
  ok({ context: { slot: 11 }, value: [{ slot: 11, confirmations: 0, err: null, status: { Ok: null }, confirmationStatus: 'processed' }] }, id);
const evmNotFound: Script = (_r, id) => ok(null, id);
const evmFound =
  (hash: string): Script =>
  (_r, id) =>
    ok({ hash, nonce: '0x0', blockHash: null, blockNumber: null, transactionIndex: null, from: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266' }, id);

// ---------------------------------------------------------------------------------------
// Pools

interface Harness {
  readonly pool: HttpTransportPool;
  readonly clock: FakeClock;
  readonly executor: ReturnType<typeof createScriptedExecutor>;
  readonly events: ReconcileEvent[];
}

/**
 * `sender` serves only sends (tier 0), `reader` only reads (tier 1): whatever goes to
 * `reader` is a lookup, and a send can only ever reach `sender`.
 */
const SPLIT: readonly EndpointConfig[] = [
  { id: 'sender', url: 'https://sender.example.com/', kinds: ['submit'], tier: 0 },
  { id: 'reader', url: 'https://reader.example.com/', kinds: ['read'], tier: 1 },
];

function harness(options: Partial<HttpTransportPoolOptions> = {}, endpoints: readonly EndpointConfig[] = SPLIT): Harness {
  const clock = createFakeClock();
  const executor = createScriptedExecutor();
  const pool = createPool({ endpoints, clock, random: createSeededRandom(1), executor, ...options });
  const events: ReconcileEvent[] = [];
  pool.on('reconcile', (event) => events.push(event));
  return { pool, clock, executor, events };
}

/** Every lookup the executor received, with the fake-clock instant it arrived. */
function recordArrivals(h: Harness, endpointId: string, replies: Script[]): number[] {
  const arrivals: number[] = [];
  h.executor.script(
    endpointId,
    ...replies.map(
      (reply): Script =>
        (request, id) => {
          arrivals.push(h.clock.now());
          return typeof reply === 'function' ? reply(request, id) : reply;
        },
    ),
  );
  return arrivals;
}

/** Settles `promise` on the fake clock within `ms` (a call still pending after that fails the test fast instead of hanging). */
async function settle<T>(h: Harness, promise: Promise<T>, ms = 10_000): Promise<T> {
  const call = track(promise, h.clock);
  await h.clock.advance(ms);
  if (!call.settled) throw new Error(`the call did not settle within ${ms} ms of fake time`);
  if (call.error !== undefined) throw call.error;
  return call.value as T;
}

/** The TransportError `promise` rejects with on the fake clock within `ms`. */
async function failure(h: Harness, promise: Promise<unknown>, ms = 10_000): Promise<TransportError> {
  const call = track(promise, h.clock);
  await h.clock.advance(ms);
  if (!call.settled) throw new Error(`the call did not settle within ${ms} ms of fake time`);
  if (!(call.error instanceof TransportError)) throw new Error(`expected a TransportError, got ${String(call.error ?? call.value)}`);
  return call.error;
}

const sendsSeen = (h: Harness, method = 'sendTransaction'): number => h.executor.received.filter((r) => r.method === method).length;
const paramsOf = (h: Harness, method: string): unknown[] => h.executor.received.filter((r) => r.method === method).map((r) => (JSON.parse(r.body) as { params: unknown }).params);

// ---------------------------------------------------------------------------------------

describe('reconcileSends off (the default): an ambiguous send fails at once and is never sent again', () => {
  it.each([
    ['unset', {}],
    ['false', { reconcileSends: false }],
  ] as const)('Solana (%s): AMBIGUOUS_DISPATCH with the signature and the getSignatureStatuses hint, no lookup', async (_, options) => {
    const h = harness(options);
    h.executor.script('sender', socketAfterWrite);
    h.executor.script('reader', statusesFound);

    const call = track(h.pool.request('sendTransaction', SOL_PARAMS), h.clock);
    await h.clock.advance(0);
    expect(call.atMs).toBe(0);
    const error = call.error as TransportError<'AMBIGUOUS_DISPATCH'>;
    expect(isTransportError(error, 'AMBIGUOUS_DISPATCH')).toBe(true);
    expect(error.signature).toBe(SOL_SIGNATURE);
    expect(error.context).toEqual({ signature: SOL_SIGNATURE, reason: 'socket-after-write' });
    expect(error.message).toContain(`getSignatureStatuses for signature ${SOL_SIGNATURE}`);
    expect(error.message).not.toMatch(/lookup/);
    expect(h.executor.received.map((r) => `${r.endpointId}:${r.method}`)).toEqual(['sender:sendTransaction']);
    expect(h.events).toEqual([]);
  });

  it('EVM: the error carries transactionHash = keccak-256 of the raw bytes — the hash anvil answered, and viem/ethers compute', async () => {
    const h = harness();
    h.executor.script('sender', socketAfterWrite);

    const error = await failure(h, h.pool.request('eth_sendRawTransaction', [RECORDED_RAW_TX]));
    expect(error.code).toBe('AMBIGUOUS_DISPATCH');
    const { transactionHash } = (error as TransportError<'AMBIGUOUS_DISPATCH'>).context;
    expect(transactionHash).toBe(RECORDED_HASH);
    expect(transactionHash).toBe(viemKeccak256(RECORDED_RAW_TX as `0x${string}`));
    expect(transactionHash).toBe(ethersKeccak256(RECORDED_RAW_TX));
    expect(transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(error.signature).toBeUndefined();
    expect((error as TransportError<'AMBIGUOUS_DISPATCH'>).context).toEqual({ transactionHash: RECORDED_HASH, reason: 'socket-after-write' });
    expect(error.message).toContain(`eth_getTransactionByHash for ${RECORDED_HASH}`);
    expect(h.executor.received.map((r) => `${r.endpointId}:${r.method}`)).toEqual(['sender:eth_sendRawTransaction']);
    expect(h.events).toEqual([]);
  });

  it('EVM: the hash of a freshly signed tx matches viem and ethers, and upper-case hex gives the same lower-case hash', async () => {
    const raw = await signedEvmTransaction(3);
    const upper = `0x${raw.slice(2).toUpperCase()}`;
    const h = harness();
    h.executor.script('sender', socketAfterWrite);

    const [lower, shouting] = [await failure(h, h.pool.request('eth_sendRawTransaction', [raw])), await failure(h, h.pool.request('eth_sendRawTransaction', [upper]))];
    const hashOf = (e: TransportError) => (e as TransportError<'AMBIGUOUS_DISPATCH'>).context.transactionHash;
    expect(hashOf(lower)).toBe(viemKeccak256(raw));
    expect(hashOf(lower)).toBe(ethersKeccak256(raw));
    expect(hashOf(shouting)).toBe(hashOf(lower));
    expect(sendsSeen(h, 'eth_sendRawTransaction')).toBe(2);
  });
});

describe('reconcileSends on: found', () => {
  it('Solana: found on the first lookup → resolves with the signature at once; one send, the lookup went to the read endpoint', async () => {
    const h = harness({ reconcileSends: true });
    h.executor.script('sender', socketAfterWrite);
    h.executor.script('reader', statusesFound);

    const call = track(h.pool.request('sendTransaction', SOL_PARAMS), h.clock);
    await h.clock.advance(0);
    expect(call.value).toBe(SOL_SIGNATURE);
    expect(call.atMs).toBe(0);
    expect(h.executor.received.map((r) => `${r.endpointId}:${r.method}`)).toEqual(['sender:sendTransaction', 'reader:getSignatureStatuses']);
    expect(paramsOf(h, 'getSignatureStatuses')).toEqual([[[SOL_SIGNATURE], { searchTransactionHistory: false }]]);
    expect(h.events).toEqual([{ atMs: 0, endpointId: 'sender', method: 'sendTransaction', found: true, lookups: 1 }]);
  });

  it('EVM: found on the first lookup → resolves with the transaction hash; the lookup is eth_getTransactionByHash([hash])', async () => {
    const h = harness({ reconcileSends: { windowMs: 1_000, intervalMs: 100 } });
    h.executor.script('sender', socketAfterWrite);
    h.executor.script('reader', evmFound(RECORDED_HASH));

    expect(await settle(h, h.pool.request('eth_sendRawTransaction', [RECORDED_RAW_TX]))).toBe(RECORDED_HASH);
    expect(sendsSeen(h, 'eth_sendRawTransaction')).toBe(1);
    expect(h.executor.received.map((r) => `${r.endpointId}:${r.method}`)).toEqual(['sender:eth_sendRawTransaction', 'reader:eth_getTransactionByHash']);
    expect(paramsOf(h, 'eth_getTransactionByHash')).toEqual([[RECORDED_HASH]]);
    expect(h.events).toEqual([{ atMs: 0, endpointId: 'sender', method: 'eth_sendRawTransaction', found: true, lookups: 1 }]);
  });

  it('Solana: found on the 3rd lookup → resolves at 2 × intervalMs, lookups every intervalMs', async () => {
    const h = harness({ reconcileSends: { windowMs: 2_000, intervalMs: 250 } });
    h.executor.script('sender', socketAfterWrite);
    const arrivals = recordArrivals(h, 'reader', [statusesNotFound, statusesNotFound, statusesFound]);

    const call = track(h.pool.request('sendTransaction', SOL_PARAMS), h.clock);
    await h.clock.advance(249);
    expect(call.settled).toBe(false);
    expect(arrivals).toEqual([0]);
    await h.clock.advance(1);
    expect(arrivals).toEqual([0, 250]);
    expect(call.settled).toBe(false);
    await h.clock.advance(250);
    expect(call.value).toBe(SOL_SIGNATURE);
    expect(call.atMs).toBe(500);
    expect(arrivals).toEqual([0, 250, 500]);
    expect(sendsSeen(h)).toBe(1);
    expect(h.events).toEqual([{ atMs: 500, endpointId: 'sender', method: 'sendTransaction', found: true, lookups: 3 }]);
    expect(h.clock.pendingTimers).toBe(0);
  });

  it('EVM: found on the 3rd lookup → resolves with the hash', async () => {
    const raw = await signedEvmTransaction(0);
    const hash = viemKeccak256(raw);
    const h = harness({ reconcileSends: { windowMs: 2_000, intervalMs: 100 } });
    h.executor.script('sender', socketAfterWrite);
    const arrivals = recordArrivals(h, 'reader', [evmNotFound, evmNotFound, evmFound(hash)]);

    const call = track(h.pool.request('eth_sendRawTransaction', [raw]), h.clock);
    await h.clock.advance(1_000);
    expect(call.value).toBe(hash);
    expect(call.atMs).toBe(200);
    expect(arrivals).toEqual([0, 100, 200]);
    expect(sendsSeen(h, 'eth_sendRawTransaction')).toBe(1);
    expect(h.events.map((e) => [e.found, e.lookups])).toEqual([[true, 3]]);
  });

  it('a status with an on-chain error still counts as found: the node would have answered the signature', async () => {
    const h = harness({ reconcileSends: true });
    h.executor.script('sender', socketAfterWrite);
    h.executor.script('reader', (_r, id) => ok({ context: { slot: 5 }, value: [{ slot: 5, confirmations: 0, err: { InstructionError: [0, 'Custom'] } }] }, id));
    expect(await settle(h, h.pool.request('sendTransaction', SOL_PARAMS))).toBe(SOL_SIGNATURE);
  });

  it.each([
    ['an HTTP 502 HTML page', html502],
    ['a socket reset after the request was written', socketAfterWrite],
  ] as const)('reconciles a send that ended ambiguous with %s', async (_, outcome) => {
    const h = harness({ reconcileSends: true });
    h.executor.script('sender', outcome);
    h.executor.script('reader', statusesFound);
    expect(await settle(h, h.pool.request('sendTransaction', SOL_PARAMS))).toBe(SOL_SIGNATURE);
    expect(sendsSeen(h)).toBe(1);
  });

  it('reconciles with endpoints serving both kinds too: the send is never sent to the peer, lookups are reads', async () => {
    const h = harness({ reconcileSends: { windowMs: 1_000, intervalMs: 100 } }, [
      { id: 'a', url: 'https://a.example.com/', tier: 0 },
      { id: 'b', url: 'https://b.example.com/', tier: 1 },
    ]);
    let lookups = 0;
    const endpointScript: Script = (request, id) => {
      const { method } = JSON.parse(request.body) as { method: string };
      if (method === 'sendTransaction') return socketAfterWrite;
      return ++lookups < 3 ? statusesNotFound(request, id) : statusesFound(request, id);
    };
    h.executor.script('a', endpointScript);
    h.executor.script('b', endpointScript);

    const call = track(h.pool.request('sendTransaction', SOL_PARAMS), h.clock);
    await h.clock.advance(1_000);
    expect(call.value).toBe(SOL_SIGNATURE);
    expect(sendsSeen(h)).toBe(1);
    expect(h.executor.received.filter((r) => r.method !== 'sendTransaction').map((r) => r.method)).toEqual([
      'getSignatureStatuses',
      'getSignatureStatuses',
      'getSignatureStatuses',
    ]);
  });
});


/** A send that ends ambiguous, then a read endpoint (200 ms timeout) whose first lookup hangs and whose second finds it. */
function hangingFirstLookup(retry: { maxRetries?: number }) {
  const h = harness({ reconcileSends: { windowMs: 2_000, intervalMs: 300 }, retry }, [
    SPLIT[0]!,
    { id: 'reader', url: 'https://reader.example.com/', kinds: ['read'], tier: 1, requestTimeoutMs: 200 },
  ]);
  h.executor.script('sender', socketAfterWrite);
  return { h, arrivals: recordArrivals(h, 'reader', [hangUntilAborted, statusesFound]) };
}

describe('reconcileSends on: not found', () => {
  it('never found → AMBIGUOUS_DISPATCH with the lookup count right after the last lookup; lookups at 0, I, 2I, … while one can start inside the window', async () => {
    // windowMs 1000, intervalMs 300: lookups at 0, 300, 600, 900 (a next one is made only
    // while now + 300 < 1000: 900 + 300 ≥ 1000, so none at 1200). The call ends right after
    // the lookup at 900, with no pause to the window's end at 1000.
    const h = harness({ reconcileSends: { windowMs: 1_000, intervalMs: 300 } });
    h.executor.script('sender', socketAfterWrite);
    const arrivals = recordArrivals(h, 'reader', [statusesNotFound]);

    const call = track(h.pool.request('sendTransaction', SOL_PARAMS), h.clock);
    await h.clock.advance(899);
    expect(call.settled).toBe(false);
    expect(arrivals).toEqual([0, 300, 600]);
    await h.clock.advance(1);
    expect(call.atMs).toBe(900);
    const error = call.error as TransportError<'AMBIGUOUS_DISPATCH'>;
    expect(error).toBeInstanceOf(TransportError);
    expect(error.code).toBe('AMBIGUOUS_DISPATCH');
    expect(arrivals).toEqual([0, 300, 600, 900]);
    expect(error.context).toEqual({ signature: SOL_SIGNATURE, reason: 'socket-after-write', lookups: 4 });
    expect(error.signature).toBe(SOL_SIGNATURE);
    expect(error.message).toContain('4 lookup(s) did not find it yet');
    expect(error.message).toContain(`getSignatureStatuses for signature ${SOL_SIGNATURE}`);
    expect(error.attempts).toEqual([expect.objectContaining({ endpointId: 'sender', dispatch: 'dispatched-ambiguous' })]);
    expect(sendsSeen(h)).toBe(1);
    expect(h.events).toEqual([{ atMs: 900, endpointId: 'sender', method: 'sendTransaction', found: false, lookups: 4 }]);
    expect(h.clock.pendingTimers).toBe(0);
  });

  it('`true` means windowMs 3000 / intervalMs 500: 6 lookups (0 … 2500), the call ends right after the last, at 2500', async () => {
    // 2500 + 500 ≥ 3000: no lookup at 3000, and no pause after the one at 2500.
    const h = harness({ reconcileSends: true });
    h.executor.script('sender', socketAfterWrite);
    const arrivals = recordArrivals(h, 'reader', [statusesNotFound]);

    const call = track(h.pool.request('sendTransaction', SOL_PARAMS), h.clock);
    await h.clock.advance(2_499);
    expect(call.settled).toBe(false);
    await h.clock.advance(1);
    expect(call.atMs).toBe(2_500);
    expect(arrivals).toEqual([0, 500, 1_000, 1_500, 2_000, 2_500]);
    expect((call.error as TransportError<'AMBIGUOUS_DISPATCH'>).context.lookups).toBe(6);
  });

  it('a partial setting keeps the other default: { windowMs: 1000 } looks up every 500 ms (at 0 and 500, ending at 500)', async () => {
    const h = harness({ reconcileSends: { windowMs: 1_000 } });
    h.executor.script('sender', socketAfterWrite);
    const arrivals = recordArrivals(h, 'reader', [statusesNotFound]);
    const call = track(h.pool.request('sendTransaction', SOL_PARAMS), h.clock);
    await h.clock.advance(5_000);
    // 500 + 500 ≥ 1000: the lookup at 500 is the last, and the call ends right after it.
    expect(call.atMs).toBe(500);
    expect(arrivals).toEqual([0, 500]);
  });

  it('EVM never found → AMBIGUOUS_DISPATCH with transactionHash and lookups', async () => {
    const h = harness({ reconcileSends: { windowMs: 500, intervalMs: 100 } });
    h.executor.script('sender', socketAfterWrite);
    h.executor.script('reader', evmNotFound);

    const call = track(h.pool.request('eth_sendRawTransaction', [RECORDED_RAW_TX]), h.clock);
    // Lookups at 0, 100, 200, 300, 400 (400 + 100 ≥ 500: the last); the call ends at 400.
    await h.clock.advance(399);
    expect(call.settled).toBe(false);
    await h.clock.advance(1);
    expect(call.atMs).toBe(400);
    expect(call.error).toMatchObject({ code: 'AMBIGUOUS_DISPATCH', context: { transactionHash: RECORDED_HASH, lookups: 5 } });
    expect((call.error as Error).message).toContain('5 lookup(s) did not find it yet');
    expect((call.error as Error).message).toContain(`eth_getTransactionByHash for ${RECORDED_HASH}`);
    expect(sendsSeen(h, 'eth_sendRawTransaction')).toBe(1);
    expect(h.executor.countFor('reader', 'eth_getTransactionByHash')).toBe(5);
  });

  it('a deadline shorter than the window bounds the lookups: only those that can start before the deadline, the call ending after the last', async () => {
    // Until min(0 + 3000, 700) = 700: lookups at 0, 300, 600 (600 + 300 ≥ 700: the last); the call ends at 600.
    const h = harness({ reconcileSends: { windowMs: 3_000, intervalMs: 300 } });
    h.executor.script('sender', socketAfterWrite);
    const arrivals = recordArrivals(h, 'reader', [statusesNotFound]);

    const call = track(h.pool.request('sendTransaction', SOL_PARAMS, { timeoutMs: 700 }), h.clock);
    await h.clock.advance(599);
    expect(call.settled).toBe(false);
    await h.clock.advance(1);
    expect(call.atMs).toBe(600);
    expect(arrivals).toEqual([0, 300, 600]);
    expect(call.error).toMatchObject({ code: 'AMBIGUOUS_DISPATCH', context: { signature: SOL_SIGNATURE, lookups: 3 } });
    expect(h.events).toEqual([{ atMs: 600, endpointId: 'sender', method: 'sendTransaction', found: false, lookups: 3 }]);
    expect(h.clock.pendingTimers).toBe(0);
  });

  it('a lookup that hangs is cut at the deadline too (the read gets only the time left)', async () => {
    const h = harness({ reconcileSends: { windowMs: 3_000, intervalMs: 300 } });
    h.executor.script('sender', socketAfterWrite);
    h.executor.script('reader', hangUntilAborted);
    const call = track(h.pool.request('sendTransaction', SOL_PARAMS, { timeoutMs: 700 }), h.clock);
    await h.clock.advance(700);
    expect(call.atMs).toBe(700);
    expect(call.error).toMatchObject({ code: 'AMBIGUOUS_DISPATCH', context: { lookups: 1 } });
    expect(h.clock.pendingTimers).toBe(0);
  });

  it('failed lookups (HTTP 500) count as not found yet; the next lookup follows after intervalMs and may find it', async () => {
    const h = harness({ reconcileSends: { windowMs: 2_000, intervalMs: 300 }, retry: { maxRetries: 0 } });
    h.executor.script('sender', socketAfterWrite);
    const arrivals = recordArrivals(h, 'reader', [http500, http500, statusesFound]);

    const call = track(h.pool.request('sendTransaction', SOL_PARAMS), h.clock);
    await h.clock.advance(2_000);
    expect(call.value).toBe(SOL_SIGNATURE);
    expect(arrivals).toEqual([0, 300, 600]);
    expect(call.atMs).toBe(600);
    expect(h.events).toEqual([{ atMs: 600, endpointId: 'sender', method: 'sendTransaction', found: true, lookups: 3 }]);
    expect(sendsSeen(h)).toBe(1);
  });

  it('lookups that only ever fail (HTTP 500) end AMBIGUOUS_DISPATCH with their count, never a read error', async () => {
    const h = harness({ reconcileSends: { windowMs: 1_000, intervalMs: 300 }, retry: { maxRetries: 0 }, reputation: false });
    h.executor.script('sender', socketAfterWrite);
    const arrivals = recordArrivals(h, 'reader', [http500]);

    const call = track(h.pool.request('sendTransaction', SOL_PARAMS), h.clock);
    await h.clock.advance(1_000);
    // As when not found: lookups at 0, 300, 600, 900 (900 + 300 ≥ 1000: the last), ending at 900.
    expect(arrivals).toEqual([0, 300, 600, 900]);
    expect(call.error).toMatchObject({ code: 'AMBIGUOUS_DISPATCH', context: { signature: SOL_SIGNATURE, lookups: 4 } });
    expect(call.atMs).toBe(900);
    expect(sendsSeen(h)).toBe(1);
  });

  it('with no endpoint serving reads, the search ends at once (the lookup fails NO_ENDPOINT, not counted), not after the window', async () => {
    const h = harness({ reconcileSends: true }, [{ id: 'relay', url: 'https://relay.example.com/', kinds: ['submit'] }]);
    h.executor.script('relay', socketAfterWrite);
    const call = track(h.pool.request('sendTransaction', SOL_PARAMS), h.clock);
    await h.clock.advance(5_000);
    expect(h.executor.received.map((r) => `${r.endpointId}:${r.method}`)).toEqual(['relay:sendTransaction']);
    expect(call.atMs).toBe(0);
    expect(call.error).toMatchObject({ code: 'AMBIGUOUS_DISPATCH', signature: SOL_SIGNATURE, context: { signature: SOL_SIGNATURE, lookups: 0 } });
    expect((call.error as Error).message).not.toContain('lookup(s) did not find it yet');
    expect((call.error as Error).message).toContain('no endpoint to ask');
    expect(h.events).toEqual([{ atMs: 0, endpointId: 'relay', method: 'sendTransaction', found: false, lookups: 0 }]);
  });

  it('a lookup that times out counts as not found; the next follows intervalMs after it ended', async () => {
    const { h, arrivals } = hangingFirstLookup({ maxRetries: 0 });

    const call = track(h.pool.request('sendTransaction', SOL_PARAMS, { timeoutMs: 10_000 }), h.clock);
    await h.clock.advance(2_000);
    expect(call.value).toBe(SOL_SIGNATURE);
    // The first lookup times out at 200; the pause runs from there.
    expect(arrivals).toEqual([0, 500]);
    expect(call.atMs).toBe(500);
    expect(h.events.map((e) => [e.found, e.lookups])).toEqual([[true, 2]]);
    expect(sendsSeen(h)).toBe(1);
  });

  it('a lookup read retries on its own like any read (one lookup, two arrivals), still never resending the transaction', async () => {
    const { h, arrivals } = hangingFirstLookup({});

    const call = track(h.pool.request('sendTransaction', SOL_PARAMS, { timeoutMs: 10_000 }), h.clock);
    await h.clock.advance(2_000);
    expect(call.value).toBe(SOL_SIGNATURE);
    expect(arrivals).toHaveLength(2);
    expect(h.events.map((e) => [e.found, e.lookups])).toEqual([[true, 1]]);
    expect(sendsSeen(h)).toBe(1);
  });
});

describe('reconcileSends and the deadline of a send that timed out', () => {
  it('a send that hangs until the call deadline leaves no time to look up: AMBIGUOUS_DISPATCH at the deadline, no read sent', async () => {
    // A call deadline equal to the role's requestTimeoutMs (10 s), the attempt's own timeout.
    const h = harness({ reconcileSends: true });
    h.executor.script('sender', hangUntilAborted);
    h.executor.script('reader', statusesFound);
    const call = track(h.pool.request('sendTransaction', SOL_PARAMS, { timeoutMs: 10_000 }), h.clock);
    await h.clock.advance(20_000);
    expect(call.atMs).toBe(10_000);
    expect(call.error).toMatchObject({
      code: 'AMBIGUOUS_DISPATCH',
      signature: SOL_SIGNATURE,
      context: { signature: SOL_SIGNATURE, lookups: 0 },
      attempts: [{ cause: 'timeout', dispatch: 'dispatched-ambiguous' }],
    });
    const message = (call.error as Error).message;
    expect(message).toContain('No lookup could be made (no time left before the deadline');
    expect(message).not.toContain('lookup(s) did not find it yet');
    expect(h.executor.countFor('reader')).toBe(0);
    expect(sendsSeen(h)).toBe(1);
  });

  it('with a call deadline longer than the attempt timeout, the lookups run in the time left after the attempt timed out', async () => {
    const h = harness({ reconcileSends: true });
    h.executor.script('sender', hangUntilAborted);
    const arrivals = recordArrivals(h, 'reader', [statusesNotFound, statusesNotFound, statusesFound]);
    const call = track(h.pool.request('sendTransaction', SOL_PARAMS, { timeoutMs: 12_000 }), h.clock);
    await h.clock.advance(20_000);
    expect(arrivals).toEqual([10_000, 10_500, 11_000]);
    expect(call.value).toBe(SOL_SIGNATURE);
    expect(call.atMs).toBe(11_000);
    expect(sendsSeen(h)).toBe(1);
  });

  it('never found with that deadline: lookups are bounded by the call deadline (12 s), not by attempt end + windowMs (13 s)', async () => {
    // Until min(10 000 + 3000, 12 000) = 12 000: lookups at 10 000 … 11 500 (11 500 + 500 ≥ 12 000: the last;
    // with 13 000 there would be lookups at 12 000 and 12 500 too). The call ends right after the last, at 11 500.
    const h = harness({ reconcileSends: true });
    h.executor.script('sender', hangUntilAborted);
    const arrivals = recordArrivals(h, 'reader', [statusesNotFound]);
    const call = track(h.pool.request('sendTransaction', SOL_PARAMS, { timeoutMs: 12_000 }), h.clock);
    await h.clock.advance(20_000);
    expect(arrivals).toEqual([10_000, 10_500, 11_000, 11_500]);
    expect(call.atMs).toBe(11_500);
    expect(call.error).toMatchObject({ code: 'AMBIGUOUS_DISPATCH', context: { signature: SOL_SIGNATURE, lookups: 4 } });
  });
});

describe('reconcileSends, the caller’s signal and pool.close()', () => {
  it('an abort during the pause between lookups ends the call at once with AMBIGUOUS_DISPATCH (the send may have landed), not ABORTED', async () => {
    const h = harness({ reconcileSends: { windowMs: 3_000, intervalMs: 500 } });
    h.executor.script('sender', socketAfterWrite);
    const arrivals = recordArrivals(h, 'reader', [statusesNotFound]);
    const controller = new AbortController();

    const call = track(h.pool.request('sendTransaction', SOL_PARAMS, { signal: controller.signal }), h.clock);
    await h.clock.advance(600);
    expect(arrivals).toEqual([0, 500]);
    controller.abort();
    await h.clock.flush();
    expect(call.settled).toBe(true);
    expect(call.atMs).toBe(600);
    expect(call.error).toMatchObject({ code: 'AMBIGUOUS_DISPATCH', context: { signature: SOL_SIGNATURE, lookups: 2 } });
    expect(h.events).toEqual([{ atMs: 600, endpointId: 'sender', method: 'sendTransaction', found: false, lookups: 2 }]);
    expect(h.clock.pendingTimers).toBe(0);
    await h.clock.advance(5_000);
    expect(arrivals).toEqual([0, 500]);
    expect(sendsSeen(h)).toBe(1);
  });

  it('an abort while a lookup is in flight ends the call at once with AMBIGUOUS_DISPATCH', async () => {
    const h = harness({ reconcileSends: { windowMs: 3_000, intervalMs: 500 } });
    h.executor.script('sender', socketAfterWrite);
    h.executor.script('reader', hangUntilAborted);
    const controller = new AbortController();

    const call = track(h.pool.request('sendTransaction', SOL_PARAMS, { signal: controller.signal }), h.clock);
    await h.clock.advance(100);
    expect(call.settled).toBe(false);
    controller.abort();
    await h.clock.flush();
    expect(call.atMs).toBe(100);
    expect(call.error).toMatchObject({ code: 'AMBIGUOUS_DISPATCH', context: { signature: SOL_SIGNATURE, lookups: 1 } });
    expect(h.executor.countFor('reader')).toBe(1);
    expect(sendsSeen(h)).toBe(1);
  });
  it('a caller abort during the send itself ends AMBIGUOUS_DISPATCH at once: the caller gave up, so nothing is looked up', async () => {
    const h = harness({ reconcileSends: true });
    h.executor.script('sender', hangUntilAborted);
    h.executor.script('reader', statusesFound);
    const controller = new AbortController();
    const call = track(h.pool.request('sendTransaction', SOL_PARAMS, { signal: controller.signal }), h.clock);
    await h.clock.advance(50);
    controller.abort();
    await h.clock.flush();
    expect(call.atMs).toBe(50);
    expect(call.error).toMatchObject({ code: 'AMBIGUOUS_DISPATCH', context: { signature: SOL_SIGNATURE } });
    expect(h.executor.countFor('reader')).toBe(0);
    expect(h.events).toEqual([]);
  });

  it('pool.close() during the lookups ends the call at once (AMBIGUOUS_DISPATCH), counting only lookups that went out', async () => {
    const h = harness({ reconcileSends: true });
    h.executor.script('sender', socketAfterWrite);
    h.executor.script('reader', statusesNotFound);
    const call = track(h.pool.request('sendTransaction', SOL_PARAMS), h.clock);
    // The lookup at 0 answered; at 100 the pool is in the pause before the next one (due at 500).
    await h.clock.advance(100);
    expect(call.settled).toBe(false);
    await h.pool.close();
    await h.clock.flush();
    expect(call.settled).toBe(true);
    expect(call.atMs).toBe(100);
    expect(call.error).toMatchObject({ code: 'AMBIGUOUS_DISPATCH', context: { signature: SOL_SIGNATURE, lookups: 1 } });
    expect(h.events).toEqual([{ atMs: 100, endpointId: 'sender', method: 'sendTransaction', found: false, lookups: 1 }]);
    await h.clock.advance(5_000);
    expect(h.executor.countFor('reader')).toBe(1);
    expect(sendsSeen(h)).toBe(1);
  });
});

describe('sends the pool cannot look up', () => {
  it('a custom never-after-dispatch method ends plain AMBIGUOUS_DISPATCH: no lookups, no event, no `lookups` in context', async () => {
    const h = harness({ reconcileSends: true, methods: { relay_submitBundle: { kind: 'submit', retryClass: 'never-after-dispatch' } } });
    h.executor.script('sender', socketAfterWrite);
    h.executor.script('reader', statusesFound);

    const call = track(h.pool.request('relay_submitBundle', [SOL_TX]), h.clock);
    await h.clock.advance(0);
    expect(call.atMs).toBe(0);
    const error = call.error as TransportError<'AMBIGUOUS_DISPATCH'>;
    expect(error.code).toBe('AMBIGUOUS_DISPATCH');
    expect(error.context).toEqual({ reason: 'socket-after-write' });
    expect(error.message).not.toMatch(/lookup/);
    expect(h.executor.received.map((r) => `${r.endpointId}:${r.method}`)).toEqual(['sender:relay_submitBundle']);
    expect(h.events).toEqual([]);
  });

  it.each([
    ['sendTransaction with an unreadable wire transaction', 'sendTransaction', ['AQABAgMEBQYHCAkKCwwNDg8Q', { encoding: 'base64' }]],
    ['sendTransaction with an unknown encoding', 'sendTransaction', [SOL_TX, { encoding: 'hex' }]],
    ['eth_sendRawTransaction with odd-length hex', 'eth_sendRawTransaction', ['0x123']],
    ['eth_sendRawTransaction with no params', 'eth_sendRawTransaction', []],
  ] as const)('%s: plain AMBIGUOUS_DISPATCH, no lookup', async (_, method, params) => {
    const h = harness({ reconcileSends: true });
    h.executor.script('sender', socketAfterWrite);
    h.executor.script('reader', statusesFound);

    const error = await failure(h, h.pool.request(method, params));
    expect(error.code).toBe('AMBIGUOUS_DISPATCH');
    expect(error.context).toEqual({ reason: 'socket-after-write' });
    expect(h.executor.received.map((r) => r.method)).toEqual([method]);
    expect(h.events).toEqual([]);
  });

  it('an ambiguous unknown method (never-after-dispatch by default) is not looked up either', async () => {
    const h = harness({ reconcileSends: true }, [{ id: 'only', url: 'https://only.example.com/' }]);
    h.executor.script('only', socketAfterWrite);
    const error = await failure(h, h.pool.request('vendor_doSomething', []));
    expect(error).toMatchObject({ code: 'AMBIGUOUS_DISPATCH', context: {} });
    expect(h.executor.received).toHaveLength(1);
  });

  it('a send that was answered is not looked up', async () => {
    const h = harness({ reconcileSends: true });
    h.executor.script('sender', (_r, id) => ok(SOL_SIGNATURE, id));
    expect(await settle(h, h.pool.request('sendTransaction', SOL_PARAMS))).toBe(SOL_SIGNATURE);
    expect(h.executor.received.map((r) => r.method)).toEqual(['sendTransaction']);
    expect(h.events).toEqual([]);
  });
});

describe('secrets', () => {
  const SECRETS = ['USERSECRET1', 'PASSSECRET2', 'SUBKEY3abc', 'PATHKEY4xyz', 'QUERYKEY5qq', 'HEADERKEY6'];
  const KEYED: readonly EndpointConfig[] = [
    { id: 'sender', url: 'https://USERSECRET1:PASSSECRET2@SUBKEY3abc.rpc-one.example.com/v2/PATHKEY4xyz?api-key=QUERYKEY5qq', kinds: ['submit'] },
    { id: 'reader', url: 'https://rpc-two.example.org/PATHKEY4xyz/?token=QUERYKEY5qq', headers: { 'x-api-key': 'HEADERKEY6' }, kinds: ['read'], tier: 1 },
  ];

  it.each([
    ['found', statusesFound],
    ['not found', statusesNotFound],
  ] as const)('the reconcile event (%s) and the error name no URL, host or key', async (_, lookupReply) => {
    const h = harness({ reconcileSends: { windowMs: 400, intervalMs: 200 } }, KEYED);
    h.executor.script('sender', socketAfterWrite);
    h.executor.script('reader', lookupReply);

    const call = track(h.pool.request('sendTransaction', SOL_PARAMS), h.clock);
    await h.clock.advance(400);
    expect(call.settled).toBe(true);
    expect(h.events).toHaveLength(1);
    const event = h.events[0]!;
    expect(Object.keys(event).sort()).toEqual(['atMs', 'endpointId', 'found', 'lookups', 'method']);
    const texts = [JSON.stringify(h.events)];
    if (call.error !== undefined) {
      const error = call.error as TransportError;
      expect(error.code).toBe('AMBIGUOUS_DISPATCH');
      texts.push(error.message, JSON.stringify(error), JSON.stringify(error.context), String(error.stack));
    }
    for (const text of texts) {
      for (const secret of [...SECRETS, 'rpc-one', 'rpc-two', 'https://']) expect(text).not.toContain(secret);
    }
  });
});

describe('reconcileSends config validation', () => {
  function configError(reconcileSends: unknown): TransportError<'INVALID_CONFIG'> {
    const executor = createScriptedExecutor();
    try {
      new HttpTransportPool({ endpoints: [{ url: 'https://a.example.com/' }], executor, clock: createFakeClock(), reconcileSends } as HttpTransportPoolOptions);
    } catch (error) {
      if (isTransportError(error, 'INVALID_CONFIG')) return error;
      throw error;
    }
    throw new Error('expected INVALID_CONFIG');
  }

  it.each([
    ['windowMs 0', 'reconcileSends.windowMs', { windowMs: 0 }],
    ['windowMs -1', 'reconcileSends.windowMs', { windowMs: -1 }],
    ['intervalMs 0', 'reconcileSends.intervalMs', { intervalMs: 0 }],
    ['intervalMs -1', 'reconcileSends.intervalMs', { intervalMs: -1 }],
  ])('rejects %s with INVALID_CONFIG naming %s', (_, path, value) => {
    const error = configError(value);
    expect(error.message).toContain(`${path}: must be > 0`);
    expect(error.context.issues).toEqual([{ path, message: 'must be > 0' }]);
  });

  // An object with a field that is not a finite number: the error names that field.
  it.each([
    ['windowMs Infinity', 'reconcileSends.windowMs', { windowMs: Number.POSITIVE_INFINITY }],
    ['windowMs NaN', 'reconcileSends.windowMs', { windowMs: Number.NaN }],
    ['intervalMs as a string', 'reconcileSends.intervalMs', { intervalMs: '500' }],
  ])('rejects %s with INVALID_CONFIG naming %s', (_, path, value) => {
    const error = configError(value);
    expect(error.message).toContain(`${path}: must be a number`);
    expect(error.context.issues).toEqual([{ path, message: 'must be a number' }]);
  });

  // Neither a boolean nor an object: the error names `reconcileSends` itself.
  it.each([
    ["'yes'", 'yes'],
    ['1', 1],
    ['null', null],
  ])('rejects %s with INVALID_CONFIG naming reconcileSends', (_, value) => {
    const error = configError(value);
    expect(error.message).toContain('reconcileSends: must be a boolean or { windowMs?, intervalMs? }');
    expect(error.context.issues).toEqual([{ path: 'reconcileSends', message: 'must be a boolean or { windowMs?, intervalMs? }' }]);
  });

  it('rejects an unknown key with INVALID_CONFIG naming reconcileSends and the key', () => {
    const error = configError({ windowMs: 1_000, retries: 3 });
    expect(error.message).toContain('reconcileSends: unknown option (retries)');
    expect(error.context.issues).toEqual([{ path: 'reconcileSends', message: 'unknown option (retries)' }]);
  });

  it.each([
    ['true', true],
    ['false', false],
    ['{}', {}],
    ['{ windowMs: 1 }', { windowMs: 1 }],
    ['{ windowMs: 2500, intervalMs: 10 }', { windowMs: 2_500, intervalMs: 10 }],
  ])('accepts %s', (_, value) => {
    const pool = createPool({ endpoints: [{ url: 'https://a.example.com/' }], executor: createScriptedExecutor(), clock: createFakeClock(), reconcileSends: value });
    expect(pool).toBeInstanceOf(HttpTransportPool);
  });
});
