import { afterEach, describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/clock.js';
import { evmTransactionHashFromSendParams } from '../../src/jsonrpc/transaction-id.js';
import type { EndpointConfig, ExpectedChain, HttpTransportPoolOptions } from '../../src/config/types.js';
import { TransportError } from '../../src/errors/transport-error.js';
import type { ExecuteRequest, RawOutcome } from '../../src/http/executor.js';
import type { ChainEvent, FailureEvent } from '../../src/api/events.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { SOLANA_GENESIS_HASHES } from '../../src/solana/clusters.js';
import { createFakeClock } from '../../src/testing/fake-clock.js';
import { ANVIL_GENESIS_HASH } from '../../src/testing/fault-answers.js';
import { closePools, createPool, rejection } from '../helpers/pools.js';
import { createScriptedExecutor, ok, type Script } from '../helpers/scripted-executor.js';
import { endpoint, track } from './pool-fixtures.js';

/**
 * The opt-in chain guard (`expectedChain`). An endpoint admits no call until it is verified;
 * the first admission trial that meets it starts its check in the background (one check per
 * endpoint at a time). A match verifies it and wakes waiting calls; a mismatch excludes it
 * for good (`CHAIN_MISMATCH` once no endpoint of a kind is left); a failed check is asked
 * again after 1 s, 2 s … 30 s. Asserted on what a caller or the (scripted) server observes:
 * results, errors, per-endpoint requests by method, events and snapshots.
 */

afterEach(closePools);

const MAINNET = SOLANA_GENESIS_HASHES['mainnet-beta'];
const DEVNET = SOLANA_GENESIS_HASHES.devnet;
/** Ethereum mainnet's block 0. */
const ETH_GENESIS = '0xd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3';
const upperHex = (hash: string) => `0x${hash.slice(2).toUpperCase()}`;
const SOLANA: ExpectedChain = { genesisHash: MAINNET };
const SEND_PARAMS = ['AQABAgMEBQYHCAkKCwwNDg8Q', { encoding: 'base64' }];
const RAW_TX = `0x02${'ab'.repeat(40)}`;
const RAW_TX_HASH = evmTransactionHashFromSendParams([RAW_TX]);

const http503: RawOutcome = { type: 'response', status: 503, headers: {}, body: '<html>503</html>' };
const http429: RawOutcome = { type: 'response', status: 429, headers: { 'retry-after': '2' }, body: 'Too Many Requests' };
const connectRefused: RawOutcome = { type: 'error', kind: 'connect', dispatched: false, code: 'ECONNREFUSED' };
const resetAfterWrite: RawOutcome = { type: 'error', kind: 'socket', dispatched: true, code: 'ECONNRESET' };
const rpcError = (code: number, message: string): RawOutcome & { id?: never } => ({
  type: 'response',
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ jsonrpc: '2.0', id: '__ID__', error: { code, message } }),
});

const methodOf = (request: ExecuteRequest): string => (JSON.parse(request.body) as { method: string }).method;

/** A gate a scripted answer can wait on, so a check stays in flight until the test opens it. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

type Answer = RawOutcome | { readonly result: unknown };
const answerFor = (answer: Answer, id: number): RawOutcome => {
  if ('result' in answer) return ok(answer.result, id);
  // Scripted JSON-RPC errors carry the request's id.
  if (answer.type === 'response' && answer.body.includes('"__ID__"')) return { ...answer, body: answer.body.replace('"__ID__"', String(id)) };
  return answer;
};

/**
 * A node answering by method. `checks` holds the answer per check method (a result, or a
 * raw outcome such as a 503), optionally behind a gate; every other method answers
 * `<method>@<endpoint>`, so a result tells which endpoint served it.
 */
function node(checks: Readonly<Record<string, Answer | (() => Answer)>>, wait?: Promise<void>): Script {
  return async (request, id) => {
    const method = methodOf(request);
    const check = checks[method];
    if (check === undefined) return ok(`${method}@${request.target.endpointId}`, id);
    if (wait) await wait;
    return answerFor(typeof check === 'function' ? check() : check, id);
  };
}

const solanaNode = (genesis: unknown, wait?: Promise<void>) => node({ getGenesisHash: { result: genesis } }, wait);
const evmNode = (chainIdHex: unknown, genesis: unknown = ETH_GENESIS, wait?: Promise<void>) =>
  node({ eth_chainId: { result: chainIdHex }, eth_getBlockByNumber: { result: { number: '0x0', hash: genesis } } }, wait);

/** A pool on a fake clock, a seeded random and a scripted executor, closed after each test; its chain and failure events. */
function setup(endpoints: readonly EndpointConfig[], options: Partial<HttpTransportPoolOptions> = {}) {
  const clock = createFakeClock();
  const executor = createScriptedExecutor();
  const pool = createPool({
    expectedChain: SOLANA,
    retry: { maxRetries: 3, initialBackoffMs: 100, maxBackoffMs: 100 },
    // Concurrent identical reads are distinct requests here: the server counts each one.
    coalesce: false,
    ...options,
    endpoints,
    clock,
    random: createSeededRandom(1),
    executor,
  });
  const chainEvents: ChainEvent[] = [];
  const failures: FailureEvent[] = [];
  pool.on('chain', (event) => chainEvents.push(event));
  pool.on('failure', (event) => failures.push(event));
  /** Requests one endpoint received, as a list of methods. */
  const methodsAt = (endpointId: string) => executor.received.filter((r) => r.endpointId === endpointId).map((r) => r.method);
  const endpointOf = (endpointId: string) => pool.snapshot().endpoints.find((e) => e.endpointId === endpointId);
  const chainOf = (endpointId: string) => endpointOf(endpointId)?.chain;
  /** Chain events of one endpoint, without their timestamps. */
  const eventsOf = (endpointId: string) => chainEvents.filter((e) => e.endpointId === endpointId).map(({ atMs: _, ...rest }) => rest);
  return { pool, clock, executor, chainEvents, failures, methodsAt, chainOf, endpointOf, eventsOf };
}

describe('Solana: getGenesisHash before an endpoint admits a call', () => {
  it('asks a matching endpoint once, marks it verified, then sends every call without asking again', async () => {
    const t = setup([endpoint('a')]);
    t.executor.script('a', solanaNode(MAINNET));
    expect(t.chainOf('a')).toBe('unverified');
    expect(t.executor.received).toEqual([]);

    await expect(t.pool.request('getSlot', [])).resolves.toBe('getSlot@a');
    await expect(t.pool.request('getBalance', ['x'])).resolves.toBe('getBalance@a');
    await expect(t.pool.request('sendTransaction', SEND_PARAMS)).resolves.toBe('sendTransaction@a');

    expect(t.methodsAt('a')).toEqual(['getGenesisHash', 'getSlot', 'getBalance', 'sendTransaction']);
    expect(JSON.parse(t.executor.received[0]?.body ?? '')).toMatchObject({ jsonrpc: '2.0', method: 'getGenesisHash', params: [] });
    expect(t.chainEvents).toEqual([{ atMs: 0, endpointId: 'a', status: 'verified' }]);
    expect(t.chainOf('a')).toBe('verified');
    expect(t.failures).toEqual([]);
    expect(t.clock.now()).toBe(0);
  });

  it('excludes an endpoint on devnet for good; the call goes to the peer at once and is never sent to devnet', async () => {
    const t = setup([endpoint('a'), endpoint('b', { tier: 1 })], { retry: { maxRetries: 0 } });
    t.executor.script('a', solanaNode(DEVNET));
    t.executor.script('b', solanaNode(MAINNET));

    await expect(t.pool.request('getSlot', [])).resolves.toBe('getSlot@b');
    expect(t.clock.now()).toBe(0);
    expect(t.methodsAt('a')).toEqual(['getGenesisHash']);
    expect(t.methodsAt('b')).toEqual(['getGenesisHash', 'getSlot']);
    expect(t.eventsOf('a')).toEqual([{ endpointId: 'a', status: 'wrong-chain', method: 'getGenesisHash', reported: DEVNET }]);
    expect(t.eventsOf('b')).toEqual([{ endpointId: 'b', status: 'verified' }]);
    expect(t.chainEvents.every((e) => e.atMs === 0)).toBe(true);
    // No attempt was ever made on a: the call's attempts are untouched.
    expect(t.failures).toEqual([]);
    expect([t.chainOf('a'), t.chainOf('b')]).toEqual(['wrong-chain', 'verified']);

    // Excluded from every kind, for good: a never hears from the pool again, though it is tier 0.
    for (let i = 0; i < 5; i++) await t.pool.request('getSlot', []);
    await expect(t.pool.request('sendTransaction', SEND_PARAMS)).resolves.toBe('sendTransaction@b');
    await t.clock.advance(120_000);
    await expect(t.pool.request('getSlot', [])).resolves.toBe('getSlot@b');
    expect(t.methodsAt('a')).toEqual(['getGenesisHash']);
    expect(t.executor.countFor('b', 'getGenesisHash')).toBe(1);
    expect(t.chainEvents).toHaveLength(2);
  });

  it('fails with CHAIN_MISMATCH naming the expected chain when every endpoint is on another chain, then at once without a request', async () => {
    const t = setup([endpoint('a'), endpoint('b', { tier: 1 })]);
    t.executor.script('a', solanaNode(DEVNET));
    t.executor.script('b', solanaNode(SOLANA_GENESIS_HASHES.testnet));

    const error = await rejection(t.pool.request('getSlot', []));
    expect(error.code).toBe('CHAIN_MISMATCH');
    expect(error.context).toEqual({ kind: 'read', expected: `genesis hash ${MAINNET}` });
    expect(error.message).toContain(`Every endpoint serving 'read' requests is on another chain than expected (genesis hash ${MAINNET})`);
    expect(error.method).toBe('getSlot');
    expect(error.attempts).toEqual([]);
    expect(t.clock.now()).toBe(0);
    expect(t.executor.received.map((r) => `${r.endpointId}:${r.method}`).sort()).toEqual(['a:getGenesisHash', 'b:getGenesisHash']);

    // Every kind lost both endpoints: later calls, sends included, fail at once and send nothing.
    const read = await rejection(t.pool.request('getBalance', ['x']));
    const send = await rejection(t.pool.request('sendTransaction', SEND_PARAMS));
    expect([read.code, send.code]).toEqual(['CHAIN_MISMATCH', 'CHAIN_MISMATCH']);
    expect(send.context).toEqual({ kind: 'submit', expected: `genesis hash ${MAINNET}` });
    expect(t.executor.received).toHaveLength(2);
    expect(t.pool.snapshot().endpoints.map((e) => e.chain)).toEqual(['wrong-chain', 'wrong-chain']);
  });

  it('fails a call pinned to an endpoint on another chain with CHAIN_MISMATCH and pinnedEndpoint, while unpinned calls go on', async () => {
    const t = setup([endpoint('a'), endpoint('b')]);
    t.executor.script('a', solanaNode(DEVNET));
    t.executor.script('b', solanaNode(MAINNET));

    const pinned = await rejection(t.pool.request('getSlot', [], { endpoint: 'a' }));
    expect(pinned.code).toBe('CHAIN_MISMATCH');
    expect(pinned.context).toEqual({ kind: 'read', expected: `genesis hash ${MAINNET}`, pinnedEndpoint: 'a' });
    expect(pinned.message).toContain(`Endpoint 'a' is on another chain than expected`);
    expect(pinned.attempts).toEqual([]);
    // A pinned call asks only its endpoint.
    expect(t.executor.received.map((r) => `${r.endpointId}:${r.method}`)).toEqual(['a:getGenesisHash']);

    // Pinned again: rejected before anything is sent. Unpinned and pinned-to-b calls work.
    const again = await rejection(t.pool.request('getSlot', [], { endpoint: 'a' }));
    expect(again.context).toMatchObject({ pinnedEndpoint: 'a' });
    await expect(t.pool.request('getSlot', [])).resolves.toBe('getSlot@b');
    await expect(t.pool.request('getSlot', [], { endpoint: 'b' })).resolves.toBe('getSlot@b');
    expect(t.methodsAt('a')).toEqual(['getGenesisHash']);
  });
});

describe('EVM: eth_chainId, then block 0’s hash', () => {
  it('verifies with eth_chainId alone when only chainId is expected (hex answer read as an integer)', async () => {
    const t = setup([endpoint('a')], { chain: 'evm', expectedChain: { chainId: 1 } });
    t.executor.script('a', evmNode('0x01'));
    await expect(t.pool.request('eth_blockNumber', [])).resolves.toBe('eth_blockNumber@a');
    expect(t.methodsAt('a')).toEqual(['eth_chainId', 'eth_blockNumber']);
    expect(t.chainEvents).toEqual([{ atMs: 0, endpointId: 'a', status: 'verified' }]);
  });

  it('excludes an endpoint reporting another chain id, without asking for its genesis block', async () => {
    const t = setup([endpoint('a'), endpoint('b', { tier: 1 })], { expectedChain: { chainId: 1, genesisHash: ETH_GENESIS } });
    t.executor.script('a', evmNode('0x89'));
    t.executor.script('b', evmNode('0x1'));

    await expect(t.pool.request('eth_blockNumber', [])).resolves.toBe('eth_blockNumber@b');
    expect(t.methodsAt('a')).toEqual(['eth_chainId']);
    expect(t.methodsAt('b')).toEqual(['eth_chainId', 'eth_getBlockByNumber', 'eth_blockNumber']);
    expect(t.eventsOf('a')).toEqual([{ endpointId: 'a', status: 'wrong-chain', method: 'eth_chainId', reported: '137' }]);
    expect(t.eventsOf('b')).toEqual([{ endpointId: 'b', status: 'verified' }]);
  });

  it('excludes an endpoint with the right chain id but another genesis block (a fork or a local chain)', async () => {
    const t = setup([endpoint('a'), endpoint('b', { tier: 1 })], { expectedChain: { chainId: 1, genesisHash: ETH_GENESIS } });
    t.executor.script('a', evmNode('0x1', upperHex(ANVIL_GENESIS_HASH)));
    t.executor.script('b', evmNode('0x1'));

    await expect(t.pool.request('eth_getBalance', ['0x0000000000000000000000000000000000000000', 'latest'])).resolves.toBe('eth_getBalance@b');
    expect(t.methodsAt('a')).toEqual(['eth_chainId', 'eth_getBlockByNumber']);
    const blockRequest = t.executor.received.find((r) => r.endpointId === 'a' && r.method === 'eth_getBlockByNumber');
    expect(JSON.parse(blockRequest?.body ?? '')).toMatchObject({ params: ['0x0', false] });
    // The reported hash is normalized to lower case.
    expect(t.eventsOf('a')).toEqual([{ endpointId: 'a', status: 'wrong-chain', method: 'eth_getBlockByNumber', reported: ANVIL_GENESIS_HASH }]);
  });

  it.each([
    ['expected in upper case, answered in lower case', upperHex(ETH_GENESIS), ETH_GENESIS],
    ['expected in lower case, answered in mixed case', ETH_GENESIS, `0x${ETH_GENESIS.slice(2, 34).toUpperCase()}${ETH_GENESIS.slice(34)}`],
  ])('compares genesis hashes case-insensitively (%s)', async (_, expected, answered) => {
    const t = setup([endpoint('a')], { expectedChain: { genesisHash: expected } });
    t.executor.script('a', evmNode('0x1', answered));
    await expect(t.pool.request('eth_blockNumber', [])).resolves.toBe('eth_blockNumber@a');
    // Only a genesis hash expected: no eth_chainId asked.
    expect(t.methodsAt('a')).toEqual(['eth_getBlockByNumber', 'eth_blockNumber']);
    expect(t.chainOf('a')).toBe('verified');
  });

  it('compares a bigint chain id above 2^53 exactly', async () => {
    const t = setup([endpoint('a'), endpoint('b', { tier: 1 })], { expectedChain: { chainId: 2n ** 60n } });
    t.executor.script('a', evmNode('0x1000000000000001'));
    t.executor.script('b', evmNode('0x1000000000000000'));
    await expect(t.pool.request('eth_blockNumber', [])).resolves.toBe('eth_blockNumber@b');
    expect(t.eventsOf('a')).toEqual([{ endpointId: 'a', status: 'wrong-chain', method: 'eth_chainId', reported: (2n ** 60n + 1n).toString() }]);
    expect(t.eventsOf('b')).toEqual([{ endpointId: 'b', status: 'verified' }]);
    const error = await rejection(t.pool.request('eth_blockNumber', [], { endpoint: 'a' }));
    expect(error.context).toEqual({ kind: 'read', expected: `chain id ${2n ** 60n}`, pinnedEndpoint: 'a' });
  });

  it('names every expected fact in CHAIN_MISMATCH (chain id 1, genesis hash …)', async () => {
    const t = setup([endpoint('a')], { expectedChain: { chainId: 1, genesisHash: ETH_GENESIS } });
    t.executor.script('a', evmNode('0x5'));
    const error = await rejection(t.pool.request('eth_blockNumber', []));
    expect(error.code).toBe('CHAIN_MISMATCH');
    expect(error.context).toEqual({ kind: 'read', expected: `chain id 1, genesis hash ${ETH_GENESIS}` });
    expect(error.message).toContain('(chain id 1, genesis hash 0xd4e5');
  });
});

describe('sends reach only verified endpoints, exactly once', () => {
  it('sendTransaction: the wrong-chain endpoint sees only the check; the peer gets the send once (maxRetries 0)', async () => {
    const t = setup([endpoint('a'), endpoint('b', { tier: 1 })], { retry: { maxRetries: 0 } });
    t.executor.script('a', solanaNode(DEVNET));
    t.executor.script('b', solanaNode(MAINNET));
    await expect(t.pool.request('sendTransaction', SEND_PARAMS)).resolves.toBe('sendTransaction@b');
    expect(t.methodsAt('a')).toEqual(['getGenesisHash']);
    expect(t.methodsAt('b')).toEqual(['getGenesisHash', 'sendTransaction']);
    expect(t.executor.received.filter((r) => r.method === 'sendTransaction')).toHaveLength(1);
  });

  it('eth_sendRawTransaction: never sent to an endpoint on another chain id', async () => {
    const t = setup([endpoint('a'), endpoint('b', { tier: 1 })], { expectedChain: { chainId: 1 }, retry: { maxRetries: 0 } });
    t.executor.script('a', evmNode('0xaa36a7'));
    t.executor.script('b', node({ eth_chainId: { result: '0x1' }, eth_sendRawTransaction: { result: RAW_TX_HASH } }));
    await expect(t.pool.request('eth_sendRawTransaction', [RAW_TX])).resolves.toBe(RAW_TX_HASH);
    expect(t.methodsAt('a')).toEqual(['eth_chainId']);
    expect(t.methodsAt('b')).toEqual(['eth_chainId', 'eth_sendRawTransaction']);
    expect(t.eventsOf('a')).toEqual([{ endpointId: 'a', status: 'wrong-chain', method: 'eth_chainId', reported: '11155111' }]);
  });

  it.each<[string, Answer, string]>([
    ['HTTP 503', http503, 'http-5xx'],
    ['a connection reset after the check was written', resetAfterWrite, 'socket-after-write'],
    ['a refused connection', connectRefused, 'connect'],
    ['a malformed answer', { result: 'not base58!' }, 'chain-check-invalid'],
    ['a JSON-RPC error', rpcError(-32601, 'Method not found'), 'method-not-found'],
  ])('a send goes to a verified peer when the check fails with %s: nothing but the check reaches the failing endpoint', async (_, answer, detail) => {
    const t = setup([endpoint('a'), endpoint('b', { tier: 1 })], { retry: { maxRetries: 0 } });
    t.executor.script('a', node({ getGenesisHash: answer }));
    t.executor.script('b', solanaNode(MAINNET));
    await expect(t.pool.request('sendTransaction', SEND_PARAMS)).resolves.toBe('sendTransaction@b');
    expect(t.methodsAt('a')).toEqual(['getGenesisHash']);
    expect(t.executor.received.filter((r) => r.method === 'sendTransaction')).toHaveLength(1);
    // The check's failure is the endpoint's, never the call's: the call made one attempt, on b, and it succeeded.
    expect(t.failures).toEqual([]);
    expect(t.eventsOf('a')).toEqual([{ endpointId: 'a', status: 'check-failed', detail, retryInMs: 1_000 }]);
    expect(t.chainOf('a')).toBe('unverified');
  });

  it('never sends a transaction twice nor to the wrong chain when 20 sends race a slow wrong-chain check', async () => {
    const check = gate();
    const t = setup([endpoint('a'), endpoint('b', { tier: 1 })], { retry: { maxRetries: 0 } });
    t.executor.script('a', solanaNode(DEVNET, check.opened));
    t.executor.script('b', solanaNode(MAINNET));
    const sends = Array.from({ length: 20 }, (_, i) => t.pool.request('sendTransaction', [`tx${i}`, { encoding: 'base64' }]));
    // b is verified while a's check is still in flight: no call waits for a.
    await expect(Promise.all(sends)).resolves.toEqual(Array.from({ length: 20 }, () => 'sendTransaction@b'));
    expect(t.methodsAt('a')).toEqual(['getGenesisHash']);
    check.open();
    await t.clock.flush();
    expect(t.chainOf('a')).toBe('wrong-chain');
    await expect(t.pool.request('sendTransaction', ['late', { encoding: 'base64' }])).resolves.toBe('sendTransaction@b');
    expect(t.methodsAt('a')).toEqual(['getGenesisHash']);
    const sent = t.executor.received.filter((r) => r.method === 'sendTransaction').map((r) => (JSON.parse(r.body) as { params: [string] }).params[0]);
    expect(sent.sort()).toEqual([...Array.from({ length: 20 }, (_, i) => `tx${i}`), 'late'].sort());
  });
});

describe('one check per endpoint, however many calls meet it', () => {
  it('20 concurrent calls over 3 unverified endpoints: exactly one check per endpoint, no call sent before a verdict', async () => {
    const check = gate();
    const t = setup([endpoint('a'), endpoint('b'), endpoint('c')]);
    for (const id of ['a', 'b', 'c']) t.executor.script(id, solanaNode(MAINNET, check.opened));
    const calls = Array.from({ length: 20 }, () => track(t.pool.request('getSlot', []), t.clock));
    await t.clock.flush();
    expect(t.executor.received.map((r) => `${r.endpointId}:${r.method}`).sort()).toEqual(['a:getGenesisHash', 'b:getGenesisHash', 'c:getGenesisHash']);
    expect(calls.some((c) => c.settled)).toBe(false);

    check.open();
    await t.clock.flush();
    expect(calls.every((c) => c.settled && typeof c.value === 'string')).toBe(true);
    for (const id of ['a', 'b', 'c']) {
      expect(t.executor.countFor(id, 'getGenesisHash')).toBe(1);
      expect(t.chainOf(id)).toBe('verified');
    }
    expect(['a', 'b', 'c'].reduce((sum, id) => sum + t.executor.countFor(id, 'getSlot'), 0)).toBe(20);
    expect(t.chainEvents.filter((e) => e.status === 'verified')).toHaveLength(3);
    expect(t.clock.now()).toBe(0);
  });

  it('a read and a send meeting the same endpoint (two kinds) share one check', async () => {
    const check = gate();
    const t = setup([endpoint('a')]);
    t.executor.script('a', solanaNode(MAINNET, check.opened));
    const read = t.pool.request('getSlot', []);
    const send = t.pool.request('sendTransaction', SEND_PARAMS);
    await t.clock.flush();
    check.open();
    await expect(Promise.all([read, send])).resolves.toEqual(['getSlot@a', 'sendTransaction@a']);
    expect(t.methodsAt('a')).toEqual(['getGenesisHash', 'getSlot', 'sendTransaction']);
  });

  it('calls waiting on the only endpoint all fail with CHAIN_MISMATCH at once when its one check finds the wrong chain', async () => {
    const check = gate();
    const t = setup([endpoint('a')]);
    t.executor.script('a', solanaNode(DEVNET, check.opened));
    const calls = Array.from({ length: 20 }, (_, i) => track(t.pool.request(i % 2 === 0 ? 'getSlot' : 'sendTransaction', i % 2 === 0 ? [] : SEND_PARAMS), t.clock));
    await t.clock.flush();
    expect(calls.some((c) => c.settled)).toBe(false);
    check.open();
    await t.clock.flush();
    for (const call of calls) {
      expect(call.atMs).toBe(0);
      expect(call.error).toMatchObject({ code: 'CHAIN_MISMATCH', context: { expected: `genesis hash ${MAINNET}` } });
    }
    expect(t.methodsAt('a')).toEqual(['getGenesisHash']);
  });
});

describe('a check that fails', () => {
  it('is reported (check-failed with detail and retryInMs), feeds the endpoint’s reputation, and is asked again only after the pause', async () => {
    const t = setup([endpoint('a'), endpoint('b', { tier: 1 })]);
    const answers: Answer[] = [http503];
    t.executor.script('a', node({ getGenesisHash: () => answers.shift() ?? { result: MAINNET } }));
    t.executor.script('b', solanaNode(MAINNET));
    const scoreBefore = t.endpointOf('a')?.reputation?.score ?? NaN;

    await expect(t.pool.request('getSlot', [])).resolves.toBe('getSlot@b');
    expect(t.eventsOf('a')).toEqual([{ endpointId: 'a', status: 'check-failed', detail: 'http-5xx', retryInMs: 1_000 }]);
    expect(t.endpointOf('a')?.reputation?.score).toBeLessThan(scoreBefore);
    expect(t.chainOf('a')).toBe('unverified');

    // Within the pause, calls meeting a do not ask again.
    await t.clock.advance(999);
    for (let i = 0; i < 3; i++) await expect(t.pool.request('getSlot', [])).resolves.toBe('getSlot@b');
    expect(t.methodsAt('a')).toEqual(['getGenesisHash']);

    // After it, the next call that meets a asks again; a is verified and serves again (tier 0).
    await t.clock.advance(1);
    await t.pool.request('getSlot', []);
    await t.clock.flush();
    expect(t.methodsAt('a')[1]).toBe('getGenesisHash');
    expect(t.chainOf('a')).toBe('verified');
    await expect(t.pool.request('getSlot', [])).resolves.toBe('getSlot@a');
    expect(t.executor.countFor('a', 'getGenesisHash')).toBe(2);
  });

  it('asks again after 1 s, 2 s, 4 s … up to 30 s while it keeps failing (a peer serves meanwhile)', async () => {
    const t = setup([endpoint('a'), endpoint('b', { tier: 1 })]);
    const asked: number[] = [];
    t.executor.script('a', node({ getGenesisHash: () => (asked.push(t.clock.now()), connectRefused) }));
    t.executor.script('b', solanaNode(MAINNET));
    // A call every 500 ms meets a (tier 0) first, so every due recheck starts at once. (After six
    // failures a's reputation benches it: it is met again only once its score recovers.)
    for (let at = 0; at <= 45_000; at += 500) {
      await t.pool.request('getSlot', []);
      await t.clock.advance(500);
    }
    expect(asked).toEqual([0, 1_000, 3_000, 7_000, 15_000, 31_000]);
    expect(t.chainEvents.filter((e) => e.endpointId === 'a').map((e) => e.retryInMs)).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000]);
    expect(t.executor.countFor('a', 'getSlot')).toBe(0);
  });

  it('a hanging check times out after the endpoint’s requestTimeoutMs, not the call’s deadline, while a peer serves', async () => {
    const t = setup([endpoint('a', { requestTimeoutMs: 2_000 }), endpoint('b', { tier: 1 })]);
    t.executor.script('a', (request) => new Promise<RawOutcome>((resolve) => request.signal.addEventListener('abort', () => resolve({ type: 'error', kind: 'aborted', dispatched: true }), { once: true })));
    t.executor.script('b', solanaNode(MAINNET));
    await expect(t.pool.request('getSlot', [], { timeoutMs: 60_000 })).resolves.toBe('getSlot@b');
    await t.clock.advance(1_999);
    expect(t.eventsOf('a')).toEqual([]);
    await t.clock.advance(1);
    expect(t.eventsOf('a')).toEqual([{ endpointId: 'a', status: 'check-failed', detail: 'attempt-timeout', retryInMs: 1_000 }]);
    expect(t.chainEvents.find((e) => e.endpointId === 'a')?.atMs).toBe(2_000);
  });

  it('a 429 on the check is reported as http-429, waits out Retry-After (2 s) before asking again and cools the role down; the call goes to a peer', async () => {
    const t = setup([endpoint('a'), endpoint('b', { tier: 1 })]);
    t.executor.script('a', node({ getGenesisHash: http429 }));
    t.executor.script('b', solanaNode(MAINNET));
    await expect(t.pool.request('getSlot', [])).resolves.toBe('getSlot@b');
    expect(t.eventsOf('a')).toEqual([{ endpointId: 'a', status: 'check-failed', detail: 'http-429', retryInMs: 2_000 }]);
    expect(t.methodsAt('a')).toEqual(['getGenesisHash']);
    // The check goes through the endpoint's first role (read); a 429 cools that role, as for any call.
    const roles = t.pool.snapshot().roles.filter((role) => role.endpointId === 'a');
    expect(roles.map((role) => [role.kind, role.availability, role.cooldownRemainingMs, role.rateLimits])).toEqual([
      ['read', 'rate-limited', 2_000, 1],
      ['submit', 'available', 0, 0],
    ]);
  });

  // The contract (ChainGuard TSDoc): "a failed check … is asked again after 1 s, 2 s, … 30 s, started
  // by the next trial that meets the endpoint after that instant"; a call waiting in admission is
  // such a trial, so it must be woken for it.
  it('a call waiting on the only endpoint is served after the recheck that follows a failed check', async () => {
    const t = setup([endpoint('a')]);
    const answers: Answer[] = [http503];
    t.executor.script('a', node({ getGenesisHash: () => answers.shift() ?? { result: MAINNET } }));
    const call = track(t.pool.request('getSlot', [], { timeoutMs: 5_000 }), t.clock);
    await t.clock.advance(5_000);
    expect(t.methodsAt('a')).toEqual(['getGenesisHash', 'getGenesisHash', 'getSlot']);
    expect(call.value).toBe('getSlot@a');
    expect(call.atMs).toBe(1_000);
  });

  it('a call that meets the only endpoint after its pause asks again and is served', async () => {
    const t = setup([endpoint('a')], { retry: { maxRetries: 0 } });
    const answers: Answer[] = [connectRefused];
    t.executor.script('a', node({ getGenesisHash: () => answers.shift() ?? { result: MAINNET } }));
    const first = track(t.pool.request('getSlot', [], { timeoutMs: 500 }), t.clock);
    await t.clock.advance(500);
    expect(first.error).toMatchObject({ code: 'DEADLINE_EXCEEDED', attempts: [] });
    await t.clock.advance(500);
    await expect(t.pool.request('getSlot', [])).resolves.toBe('getSlot@a');
    expect(t.methodsAt('a')).toEqual(['getGenesisHash', 'getGenesisHash', 'getSlot']);
    expect(t.eventsOf('a').map((e) => e.status)).toEqual(['check-failed', 'verified']);
  });

  it('a check cut short by pool.close() reports nothing and teaches the endpoint nothing', async () => {
    const t = setup([endpoint('a')]);
    t.executor.script('a', (request) => new Promise<RawOutcome>((resolve) => request.signal.addEventListener('abort', () => resolve({ type: 'error', kind: 'aborted', dispatched: true }), { once: true })));
    const call = track(t.pool.request('getSlot', [], { timeoutMs: 5_000 }), t.clock);
    await t.clock.advance(10);
    expect(t.methodsAt('a')).toEqual(['getGenesisHash']);
    await t.pool.close();
    await t.clock.advance(5_000);
    expect(call.error).toMatchObject({ code: 'POOL_CLOSED' });
    expect(t.chainEvents).toEqual([]);
    expect(t.endpointOf('a')?.reputation?.score).toBe(80);
    expect(t.chainOf('a')).toBe('unverified');
  });
});

describe('the check and the endpoint’s rate limit', () => {
  it('spends a token: with 1 request per second (burst 1) the first call goes out after the refill, not with the check', async () => {
    const t = setup([endpoint('a', { requestsPerSecond: 1, burstCapacity: 1 })]);
    t.executor.script('a', solanaNode(MAINNET));
    const call = track(t.pool.request('getSlot', [], { timeoutMs: 5_000 }), t.clock);
    await t.clock.advance(999);
    expect(t.methodsAt('a')).toEqual(['getGenesisHash']);
    expect(call.settled).toBe(false);
    await t.clock.advance(1);
    expect(call.value).toBe('getSlot@a');
    expect(call.atMs).toBe(1_000);
    expect(t.methodsAt('a')).toEqual(['getGenesisHash', 'getSlot']);
  });
});

describe('a malformed check answer', () => {
  const solana = { genesisHash: MAINNET };
  const evmId = { chainId: 1 };
  const evmHash = { genesisHash: ETH_GENESIS };
  // A null where the method never answers null is caught by the response classifier (empty-result);
  // every other malformed answer by the guard's own reading (chain-check-invalid).
  const cases: [string, ExpectedChain, Script, string][] = [
    ['getGenesisHash → null', solana, node({ getGenesisHash: { result: null } }), 'empty-result'],
    ['getGenesisHash → a number', solana, node({ getGenesisHash: { result: 42 } }), 'chain-check-invalid'],
    ['getGenesisHash → a 31-byte base58 string', solana, node({ getGenesisHash: { result: '1111111111111111111111111111111' } }), 'chain-check-invalid'],
    ['getGenesisHash → a 0x hash', solana, node({ getGenesisHash: { result: ETH_GENESIS } }), 'chain-check-invalid'],
    ['eth_chainId → null', evmId, node({ eth_chainId: { result: null } }), 'empty-result'],
    ['eth_chainId → a JSON number', evmId, node({ eth_chainId: { result: 1 } }), 'chain-check-invalid'],
    ['eth_chainId → decimal text', evmId, node({ eth_chainId: { result: '1' } }), 'chain-check-invalid'],
    ['eth_chainId → "0x"', evmId, node({ eth_chainId: { result: '0x' } }), 'chain-check-invalid'],
    ['eth_getBlockByNumber → null', evmHash, node({ eth_getBlockByNumber: { result: null } }), 'chain-check-invalid'],
    ['eth_getBlockByNumber → a block without hash', evmHash, node({ eth_getBlockByNumber: { result: { number: '0x0' } } }), 'chain-check-invalid'],
    ['eth_getBlockByNumber → a short hash', evmHash, node({ eth_getBlockByNumber: { result: { hash: '0x1234' } } }), 'chain-check-invalid'],
  ];

  it.each(cases)('%s: check-failed, the endpoint stays unverified and gets no call; a peer serves', async (_, expectedChain, script, detail) => {
    const t = setup([endpoint('a'), endpoint('b', { tier: 1 })], { expectedChain });
    t.executor.script('a', script);
    t.executor.script('b', expectedChain === solana ? solanaNode(MAINNET) : evmNode('0x1'));
    await expect(t.pool.request('getSlot', [])).resolves.toBe('getSlot@b');
    expect(t.eventsOf('a')).toEqual([{ endpointId: 'a', status: 'check-failed', detail, retryInMs: 1_000 }]);
    expect(t.executor.countFor('a')).toBe(1);
    expect(t.chainOf('a')).toBe('unverified');
    expect(t.failures).toEqual([]);
    expect(t.eventsOf('b')).toEqual([{ endpointId: 'b', status: 'verified' }]);
  });

  it('alone, leaves the endpoint unverified: the recheck is due after the deadline, so the call ends DEADLINE_EXCEEDED at once with no attempt, never sent', async () => {
    const t = setup([endpoint('a')]);
    t.executor.script('a', node({ getGenesisHash: { result: 'not base58!' } }));
    const call = track(t.pool.request('sendTransaction', SEND_PARAMS, { timeoutMs: 800 }), t.clock);
    await t.clock.advance(800);
    expect(call.error).toMatchObject({ code: 'DEADLINE_EXCEEDED', attempts: [] });
    expect(call.atMs).toBe(0);
    expect(t.methodsAt('a')).toEqual(['getGenesisHash']);
    expect(t.chainOf('a')).toBe('unverified');
  });
});

describe('calls waiting for a verdict', () => {
  it('rejects a waiting call with CHAIN_MISMATCH at once when the last endpoint is excluded (maxConcurrentRequests 1)', async () => {
    const check = gate();
    const t = setup([endpoint('a', { maxConcurrentRequests: 1 })]);
    t.executor.script('a', solanaNode(DEVNET, check.opened));
    const first = track(t.pool.request('getSlot', [], { timeoutMs: 10_000 }), t.clock);
    const waiter = track(t.pool.request('getSlot', [], { timeoutMs: 10_000 }), t.clock);
    await t.clock.flush();
    expect([first.settled, waiter.settled]).toEqual([false, false]);

    check.open();
    await t.clock.flush();
    expect(t.clock.now()).toBe(0);
    for (const call of [first, waiter]) {
      expect(call.atMs).toBe(0);
      expect(call.error).toMatchObject({ code: 'CHAIN_MISMATCH', context: { kind: 'read', expected: `genesis hash ${MAINNET}` } });
      expect((call.error as TransportError).attempts).toEqual([]);
    }
    expect(t.methodsAt('a')).toEqual(['getGenesisHash']);
  });

  it('rejects only the calls pinned to the excluded endpoint; the others are served by a peer', async () => {
    const check = gate();
    const t = setup([endpoint('a'), endpoint('b', { tier: 1 })]);
    t.executor.script('a', solanaNode(DEVNET, check.opened));
    t.executor.script('b', solanaNode(MAINNET));
    const pinned = track(t.pool.request('getSlot', [], { endpoint: 'a', timeoutMs: 10_000 }), t.clock);
    const unpinned = track(t.pool.request('getSlot', []), t.clock);
    await t.clock.flush();
    expect(pinned.settled).toBe(false);
    expect(unpinned.value).toBe('getSlot@b');
    check.open();
    await t.clock.flush();
    expect(pinned.error).toMatchObject({ code: 'CHAIN_MISMATCH', context: { pinnedEndpoint: 'a', kind: 'read' } });
    expect(pinned.atMs).toBe(0);
    expect(t.methodsAt('a')).toEqual(['getGenesisHash']);
  });

  it('a call aborted while it waits for a check ends ABORTED at once and sends nothing; the check still completes', async () => {
    const check = gate();
    const t = setup([endpoint('a')]);
    t.executor.script('a', solanaNode(MAINNET, check.opened));
    const controller = new AbortController();
    const waiter = track(t.pool.request('sendTransaction', SEND_PARAMS, { signal: controller.signal }), t.clock);
    await t.clock.flush();
    expect(t.methodsAt('a')).toEqual(['getGenesisHash']);

    controller.abort();
    await t.clock.flush();
    expect(waiter.error).toMatchObject({ code: 'ABORTED', attempts: [] });
    expect(waiter.atMs).toBe(0);

    check.open();
    await t.clock.flush();
    expect(t.methodsAt('a')).toEqual(['getGenesisHash']);
    expect(t.chainOf('a')).toBe('verified');
    await expect(t.pool.request('getSlot', [])).resolves.toBe('getSlot@a');
  });

  it('a call whose deadline passes while it waits for a check ends DEADLINE_EXCEEDED and sends nothing', async () => {
    const check = gate();
    const t = setup([endpoint('a')]);
    t.executor.script('a', solanaNode(MAINNET, check.opened));
    const patient = track(t.pool.request('getSlot', [], { timeoutMs: 10_000 }), t.clock);
    const hasty = track(t.pool.request('getBalance', ['x'], { timeoutMs: 300 }), t.clock);
    await t.clock.advance(300);
    expect(hasty.error).toMatchObject({ code: 'DEADLINE_EXCEEDED', context: { timeoutMs: 300 }, attempts: [] });
    expect(hasty.atMs).toBe(300);
    expect(patient.settled).toBe(false);
    check.open();
    await t.clock.flush();
    expect(patient.value).toBe('getSlot@a');
    expect(t.methodsAt('a')).toEqual(['getGenesisHash', 'getSlot']);
  });

  it('pool.close() during a check ends the waiting calls with POOL_CLOSED; nothing but the check is sent', async () => {
    const t = setup([endpoint('a')]);
    t.executor.script('a', (request) => new Promise<RawOutcome>((resolve) => request.signal.addEventListener('abort', () => resolve({ type: 'error', kind: 'aborted', dispatched: true }), { once: true })));
    const calls = Array.from({ length: 3 }, () => track(t.pool.request('getSlot', []), t.clock));
    await t.clock.flush();
    await t.pool.close();
    await t.clock.flush();
    for (const call of calls) expect(call.error).toMatchObject({ code: 'POOL_CLOSED' });
    expect(t.methodsAt('a')).toEqual(['getGenesisHash']);
  });

  it('an endpoint on the wrong chain costs the call no retry: maxRetries 0 still succeeds, and a later 503 still gets its retry', async () => {
    const t = setup([endpoint('a'), endpoint('b', { tier: 1 }), endpoint('c', { tier: 2 })], { retry: { maxRetries: 1, initialBackoffMs: 0, maxBackoffMs: 0 } });
    t.executor.script('a', solanaNode(DEVNET));
    let bCalls = 0;
    t.executor.script('b', node({ getGenesisHash: { result: MAINNET }, getSlot: () => (bCalls++ === 0 ? http503 : { result: 'getSlot@b' }) }));
    t.executor.script('c', solanaNode(MAINNET));
    await expect(t.pool.request('getSlot', [])).resolves.toMatch(/^getSlot@[bc]$/);
    expect(t.failures.map((f) => `${f.endpointId}:${f.cause}`)).toEqual(['b:temporary-http']);
    expect(t.methodsAt('a')).toEqual(['getGenesisHash']);
  });
});

describe('opting out', () => {
  it('without expectedChain nothing is asked and every endpoint is unchecked', async () => {
    const t = setup([endpoint('a')], { expectedChain: undefined as never });
    t.executor.script('a', node({}));
    await expect(t.pool.request('getSlot', [])).resolves.toBe('getSlot@a');
    expect(t.methodsAt('a')).toEqual(['getSlot']);
    expect(t.chainOf('a')).toBe('unchecked');
    expect(t.chainEvents).toEqual([]);
  });

  it('verifyChain: false admits at once (unchecked) while the checked endpoints are asked in the background', async () => {
    const check = gate();
    const t = setup([endpoint('a'), endpoint('relay', { tier: 1, verifyChain: false })], { retry: { maxRetries: 0 } });
    t.executor.script('a', solanaNode(MAINNET, check.opened));
    t.executor.script('relay', node({}));
    expect([t.chainOf('a'), t.chainOf('relay')]).toEqual(['unverified', 'unchecked']);
    // a (tier 0) is being checked: the call does not wait for it, it goes to the unchecked relay.
    await expect(t.pool.request('sendTransaction', SEND_PARAMS)).resolves.toBe('sendTransaction@relay');
    expect(t.methodsAt('relay')).toEqual(['sendTransaction']);
    expect(t.methodsAt('a')).toEqual(['getGenesisHash']);
    check.open();
    await t.clock.flush();
    await expect(t.pool.request('getSlot', [])).resolves.toBe('getSlot@a');
    expect([t.chainOf('a'), t.chainOf('relay')]).toEqual(['verified', 'unchecked']);
    expect(t.chainEvents).toEqual([{ atMs: 0, endpointId: 'a', status: 'verified' }]);
  });

  it('an unchecked endpoint keeps serving when every checked endpoint is on another chain', async () => {
    const t = setup([endpoint('a'), endpoint('relay', { tier: 1, verifyChain: false })]);
    t.executor.script('a', solanaNode(DEVNET));
    t.executor.script('relay', node({}));
    await expect(t.pool.request('getSlot', [])).resolves.toBe('getSlot@relay');
    await t.clock.flush();
    await expect(t.pool.request('getSlot', [])).resolves.toBe('getSlot@relay');
    expect(t.methodsAt('a')).toEqual(['getGenesisHash']);
    expect(t.methodsAt('relay')).toEqual(['getSlot', 'getSlot']);
    expect(t.chainOf('a')).toBe('wrong-chain');
  });
});

describe('permits from acquireForMethod', () => {
  it('land only on verified endpoints (the check runs first), never on an excluded one', async () => {
    const t = setup([endpoint('a'), endpoint('b')]);
    t.executor.script('a', solanaNode(DEVNET));
    t.executor.script('b', solanaNode(MAINNET));
    const first = await t.pool.acquireForMethod('getSlot');
    expect(first.endpointId).toBe('b');
    first.release();
    expect(t.executor.received.every((r) => r.method === 'getGenesisHash')).toBe(true);
    await t.clock.flush();
    expect(t.chainOf('a')).toBe('wrong-chain');

    const seen = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const permit = await t.pool.acquireForMethod(i % 2 === 0 ? 'getSlot' : 'sendTransaction');
      seen.add(permit.endpointId);
      permit.release();
    }
    expect([...seen]).toEqual(['b']);
    const pinned = await rejection(t.pool.acquireForMethod('getSlot', { endpoint: 'a' }));
    expect(pinned.code).toBe('CHAIN_MISMATCH');
    expect(pinned.context).toMatchObject({ pinnedEndpoint: 'a' });
    expect(t.methodsAt('a')).toEqual(['getGenesisHash']);
  });
});

describe('expectedChain validation', () => {
  const cases: [string, Partial<HttpTransportPoolOptions>, string][] = [
    ['a hash of neither family', { expectedChain: { genesisHash: 'not-a-hash' } }, 'expectedChain.genesisHash'],
    ['0x + 63 hex digits', { expectedChain: { genesisHash: `0x${'a'.repeat(63)}` } }, 'expectedChain.genesisHash'],
    ['a 31-byte base58 hash', { expectedChain: { genesisHash: '1111111111111111111111111111111' } }, 'expectedChain.genesisHash'],
    ['a non-string hash', { expectedChain: { genesisHash: 42 as unknown as string } }, 'expectedChain.genesisHash'],
    ['chainId with a Solana hash', { expectedChain: { chainId: 1, genesisHash: MAINNET } }, 'expectedChain.chainId'],
    ["chain 'solana' with an EVM hash", { chain: 'solana', expectedChain: { genesisHash: ETH_GENESIS } }, 'expectedChain'],
    ["chain 'solana' with a chain id", { chain: 'solana', expectedChain: { chainId: 1 } }, 'expectedChain'],
    ["chain 'evm' with a Solana hash", { chain: 'evm', expectedChain: { genesisHash: MAINNET } }, 'expectedChain'],
    ['an empty object', { expectedChain: {} }, 'expectedChain'],
    ['an unknown key', { expectedChain: { chainID: 1 } as never }, 'expectedChain'],
    ['chainId 0', { expectedChain: { chainId: 0 } }, 'expectedChain.chainId'],
    ['chainId -1', { expectedChain: { chainId: -1 } }, 'expectedChain.chainId'],
    ['chainId 1.5', { expectedChain: { chainId: 1.5 } }, 'expectedChain.chainId'],
    ['chainId NaN', { expectedChain: { chainId: Number.NaN } }, 'expectedChain.chainId'],
    ['chainId above 2^53 as a number', { expectedChain: { chainId: 2 ** 53 } }, 'expectedChain.chainId'],
    ['chainId 0n', { expectedChain: { chainId: 0n } }, 'expectedChain.chainId'],
    ['chainId -5n', { expectedChain: { chainId: -5n } }, 'expectedChain.chainId'],
    ['chainId as a string', { expectedChain: { chainId: '1' as unknown as number } }, 'expectedChain.chainId'],
    [
      'verifyChain not a boolean',
      { expectedChain: { chainId: 1 }, endpoints: [{ id: 'a', url: 'https://a.example.com/', verifyChain: 'no' as unknown as boolean }] },
      'endpoints[0].verifyChain',
    ],
  ];

  it.each(cases)('rejects %s with INVALID_CONFIG naming the path, before anything is sent', (_, options, path) => {
    const executor = createScriptedExecutor();
    let thrown: unknown;
    try {
      new HttpTransportPool({ endpoints: [{ id: 'a', url: 'https://a.example.com/' }], executor, ...options });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TransportError);
    const error = thrown as TransportError<'INVALID_CONFIG'>;
    expect(error.code).toBe('INVALID_CONFIG');
    expect(error.context.issues.map((issue) => issue.path)).toContain(path);
    expect(error.message).toContain(`${path}:`);
    expect(executor.received).toEqual([]);
  });

  it.each<[string, Partial<HttpTransportPoolOptions>]>([
    ['a Solana hash', { expectedChain: { genesisHash: MAINNET } }],
    ["a Solana hash with chain 'solana'", { chain: 'solana', expectedChain: { genesisHash: MAINNET } }],
    ["an EVM hash with chain 'generic'", { chain: 'generic', expectedChain: { genesisHash: ETH_GENESIS } }],
    ['an upper-case EVM hash', { expectedChain: { genesisHash: upperHex(ETH_GENESIS) } }],
    ["chainId and hash with chain 'evm'", { chain: 'evm', expectedChain: { chainId: 1, genesisHash: ETH_GENESIS } }],
    ['a bigint chainId', { expectedChain: { chainId: 2n ** 64n } }],
    ['the largest safe number chainId', { expectedChain: { chainId: Number.MAX_SAFE_INTEGER } }],
  ])('accepts %s, and sends nothing at construction', async (_, options) => {
    const executor = createScriptedExecutor();
    const pool = createPool({ endpoints: [{ id: 'a', url: 'https://a.example.com/' }], executor, clock: createFakeClock(), ...options });
    await new Promise((resolve) => setImmediate(resolve));
    expect(pool.snapshot().endpoints[0]?.chain).toBe('unverified');
    expect(executor.received).toEqual([]);
  });
});

describe('no URL or key in chain events, CHAIN_MISMATCH errors or snapshots', () => {
  const SECRETS = ['SUBDOMAINKEY0123456789', 'PATHKEY0123456789', 'QUERYKEY0123456789', 'USERINFOKEY0123456789', 'HEADERKEY0123456789'];
  const endpoints: EndpointConfig[] = [
    { url: 'https://SUBDOMAINKEY0123456789.rpc.example.com/' },
    { url: 'https://rpc.example.com/v2/PATHKEY0123456789', tier: 1 },
    { url: 'https://rpc.example.com/?api-key=QUERYKEY0123456789', tier: 2 },
    { url: 'https://user:USERINFOKEY0123456789@rpc.example.com/', tier: 3, headers: { authorization: 'Bearer HEADERKEY0123456789' } },
  ];
  const noSecret = (text: string) => {
    for (const secret of SECRETS) expect(text.toLowerCase()).not.toContain(secret.toLowerCase());
    expect(text).not.toContain('rpc.example.com/');
  };

  it('keeps keys out of wrong-chain and check-failed events, the CHAIN_MISMATCH error and the snapshot', async () => {
    const t = setup(endpoints);
    const ids = t.pool.snapshot().endpoints.map((e) => e.endpointId);
    // The first endpoint's check fails once (check-failed), then it reports devnet like the others.
    const answers: Answer[] = [http503];
    t.executor.script(ids[0] ?? '', node({ getGenesisHash: () => answers.shift() ?? { result: DEVNET } }));
    for (const id of ids.slice(1)) t.executor.script(id, solanaNode(DEVNET));
    // The waiting call is woken for the recheck after the pause; then every endpoint is on devnet.
    const call = track(t.pool.request('getSlot', [], { timeoutMs: 5_000 }), t.clock);
    await t.clock.advance(5_000);
    expect(call.settled).toBe(true);
    const error = call.error as TransportError;
    expect(error.code).toBe('CHAIN_MISMATCH');
    expect(t.chainEvents.map((e) => e.status).sort()).toEqual(['check-failed', 'wrong-chain', 'wrong-chain', 'wrong-chain', 'wrong-chain']);
    noSecret(JSON.stringify(t.chainEvents));
    noSecret(`${error.message} ${JSON.stringify(error.context)} ${JSON.stringify(error.attempts)} ${String(error.stack)}`);
    noSecret(JSON.stringify(t.pool.snapshot()));

    const pinned = await rejection(t.pool.request('getSlot', [], { endpoint: ids[1] }));
    expect(pinned.code).toBe('CHAIN_MISMATCH');
    noSecret(`${pinned.message} ${JSON.stringify(pinned.context)}`);
    const send = await rejection(t.pool.request('sendTransaction', SEND_PARAMS));
    noSecret(`${send.message} ${JSON.stringify(send.context)}`);
  });

  it('keeps keys out of verified events and snapshots', async () => {
    const t = setup(endpoints);
    for (const e of t.pool.snapshot().endpoints) t.executor.script(e.endpointId, solanaNode(MAINNET));
    await t.pool.request('getSlot', []);
    await t.clock.flush();
    expect(t.chainEvents.map((e) => e.status)).toContain('verified');
    noSecret(JSON.stringify(t.chainEvents));
    noSecret(JSON.stringify(t.pool.snapshot()));
  });
});
