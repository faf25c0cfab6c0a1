import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/clock.js';
import { createEvmClient, type EvmClient } from '../../src/evm/index.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { createFakeClock } from '../../src/testing/index.js';
import { startAnvil, type AnvilInstance } from '../helpers/anvil.js';
import { closeAllServers, startRpcServer, type RpcHandler, type RpcServer } from '../helpers/loopback.js';

/**
 * The typed EVM calls, `sendAndWait` and `getLogs` against a real node (anvil 1.7.1)
 * through the real pool. Loopback proxies in front of anvil count what arrives, lose
 * answers, or refuse log ranges like a provider.
 */

const ACCOUNT_0 = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const ACCOUNT_1 = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const TOPIC = `0x${'e1'.repeat(32)}`;
/** Runtime: copy calldata to memory, LOG1(memory[0..calldatasize], TOPIC), stop. */
const RUNTIME = `0x366000600037 7f${'e1'.repeat(32)} 366000a1 00`.replaceAll(' ', '');
/** Init code: return the runtime (CODECOPY from offset 11). */
const INIT = `0x602c80600b6000396000f3${RUNTIME.slice(2)}`;

async function rpc(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await response.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/** Forwards to anvil; `instead` may answer a request itself or misbehave after forwarding. */
function proxyTo(url: string, instead?: (method: string, params: unknown, exchange: Parameters<RpcHandler>[1], forward: () => Promise<string>) => Promise<boolean> | boolean): RpcHandler {
  return async (request, exchange) => {
    const forward = async () => (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: exchange.body })).text();
    if (instead && (await instead(request.method, request.params, exchange, forward))) return;
    const text = await forward();
    exchange.res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    exchange.res.end(text);
  };
}

/** Moves a fake clock on in small steps, letting requests finish on the real sockets, until `promise` settles (bounded). */
async function driveUntilSettled<T>(clock: ReturnType<typeof createFakeClock>, promise: Promise<T>): Promise<T> {
  let settled = false;
  const tracked = promise.finally(() => {
    settled = true;
  });
  for (let i = 0; i < 1_000 && !settled; i++) {
    await clock.advance(100);
    await sleep(2);
  }
  return tracked;
}

/** Waits (bounded, 5 s) until `condition` holds: for events on real sockets, never for timing logic. */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 1_000 && !condition(); i++) await sleep(5);
  expect(condition()).toBe(true);
}

describe('typed EVM calls, sendAndWait and getLogs against anvil', () => {
  let anvil: AnvilInstance;
  let pool: HttpTransportPool;
  let evm: EvmClient;
  let contract: `0x${string}`;
  const pools: HttpTransportPool[] = [];

  beforeAll(async () => {
    anvil = await startAnvil();
    pool = new HttpTransportPool({ endpoints: [{ url: anvil.url }], chain: 'evm' });
    evm = createEvmClient(pool);
    const hash = (await rpc(anvil.url, 'eth_sendTransaction', [{ from: ACCOUNT_0, data: INIT, gas: '0x30000' }])) as string;
    for (let i = 0; i < 200 && contract === undefined; i++) {
      const receipt = await evm.getTransactionReceipt(hash);
      if (receipt?.contractAddress) contract = receipt.contractAddress;
      else await sleep(10);
    }
  });
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((p) => p.close()));
    await closeAllServers();
  });
  afterAll(async () => {
    await pool?.close();
    await anvil?.stop();
  });

  function clientOver(server: RpcServer, clock?: Clock): EvmClient {
    const p = new HttpTransportPool({ endpoints: [{ id: 'proxy', url: server.url }], chain: 'evm', ...(clock ? { clock } : {}) });
    pools.push(p);
    return createEvmClient(p, clock ? { clock } : {});
  }

  /** A pool over two relays of two operators (a used nonce is proven only by two operators). */
  function clientOverTwo(a: RpcServer, b: RpcServer, clock: Clock): EvmClient {
    const p = new HttpTransportPool({
      endpoints: [
        { id: 'relay-a', url: a.url, operator: 'a' },
        { id: 'relay-b', url: b.url, operator: 'b' },
      ],
      chain: 'evm',
      clock,
    });
    pools.push(p);
    return createEvmClient(p, { clock });
  }

  async function signedTransfer(options: { nonce?: bigint; to?: string; value?: bigint; maxFeePerGas?: bigint; maxPriorityFeePerGas?: bigint } = {}): Promise<string> {
    const nonce = options.nonce ?? (await evm.getTransactionCount(ACCOUNT_0, 'pending'));
    return (await rpc(anvil.url, 'eth_signTransaction', [
      {
        from: ACCOUNT_0,
        to: options.to ?? ACCOUNT_1,
        value: `0x${(options.value ?? 1n).toString(16)}`,
        gas: '0x5208',
        nonce: `0x${nonce.toString(16)}`,
        maxFeePerGas: `0x${(options.maxFeePerGas ?? 2_000_000_000n).toString(16)}`,
        maxPriorityFeePerGas: `0x${(options.maxPriorityFeePerGas ?? 1_000_000_000n).toString(16)}`,
        chainId: '0x7a69',
      },
    ])) as string;
  }

  it('deploys the event contract and reads its code, a call, an estimate and the nonce', async () => {
    expect(contract).toMatch(/^0x[0-9a-fA-F]{40}$/);
    await expect(evm.getCode(contract)).resolves.toBe(RUNTIME);
    await expect(evm.getCode(ACCOUNT_1)).resolves.toBe('0x');
    await expect(evm.call({ to: contract, data: '0x1234' })).resolves.toBe('0x');
    await expect(evm.estimateGas({ from: ACCOUNT_0, to: ACCOUNT_1, value: 1n })).resolves.toBe(21_000n);
    const latest = await evm.getTransactionCount(ACCOUNT_0);
    await expect(evm.getTransactionCount(ACCOUNT_0, 'pending')).resolves.toBe(latest);
    expect(latest).toBeGreaterThanOrEqual(1n);
  });

  it('reads blocks by number and hash, fees and fee history as bigints', async () => {
    const genesis = await evm.getBlockByNumber(0n);
    expect(genesis?.number).toBe(0n);
    expect(genesis?.hash).toBe('0xc56b8342e33b57477139f45874ae699b6fe1ca1a65d089b78c34dabc3206e07b');
    await expect(evm.getBlockByHash(genesis!.hash!)).resolves.toEqual(genesis);
    const latest = await evm.getBlockByNumber('latest', { includeTransactions: true });
    expect(typeof latest?.transactions[0]).toBe('object');
    await expect(evm.getBlockByNumber(10_000_000n)).resolves.toBeNull();
    expect(await evm.gasPrice()).toBeGreaterThan(0n);
    expect(typeof (await evm.maxPriorityFeePerGas())).toBe('bigint');
    const history = await evm.feeHistory(2, 'latest', [25, 75]);
    expect(history.baseFeePerGas).toHaveLength(history.gasUsedRatio.length + 1);
    expect(history.reward?.every((row) => row.length === 2)).toBe(true);
  });

  it('sendAndWait: an ordinary send arrives once and is confirmed with its receipt', async () => {
    const relay = await startRpcServer(proxyTo(anvil.url));
    const raw = await signedTransfer();
    const outcome = await clientOver(relay).sendAndWait(raw, { poll: { initialIntervalMs: 10 } });
    expect(outcome).toMatchObject({ status: 'confirmed', dispatch: 'acknowledged', confirmations: 1n, receipt: { status: 'success', from: ACCOUNT_0.toLowerCase() } });
    expect(relay.count('eth_sendRawTransaction')).toBe(1);
    await expect(evm.getTransactionByHash(outcome.transactionHash)).resolves.toMatchObject({ hash: outcome.transactionHash, to: ACCOUNT_1.toLowerCase() });
  });

  it('sendAndWait: a send whose answer is lost after anvil read it still ends confirmed, with one arrival at the node', async () => {
    // The proxy forwards the send to anvil, then resets the client's socket instead of answering.
    const losing = await startRpcServer(
      proxyTo(anvil.url, async (method, _, { socket }, forward) => {
        if (method !== 'eth_sendRawTransaction') return false;
        await forward();
        socket.resetAndDestroy();
        return true;
      }),
    );
    const raw = await signedTransfer();
    const before = await evm.getBlockNumber();
    const outcome = await clientOver(losing).sendAndWait(raw, { poll: { initialIntervalMs: 10 } });
    expect(outcome).toMatchObject({ status: 'confirmed', dispatch: 'ambiguous', receipt: { status: 'success' } });
    expect(losing.count('eth_sendRawTransaction')).toBe(1);
    await expect(evm.getBlockNumber()).resolves.toBe(before + 1n);
  });

  it('sendAndWait waits for the requested confirmations', async () => {
    const clock = createFakeClock();
    const relay = await startRpcServer(proxyTo(anvil.url));
    const raw = await signedTransfer();
    const pending = clientOver(relay, clock).sendAndWait(raw, { confirmations: 3 });
    // Mined (1 confirmation) and looked at once: then two more blocks, then the next poll.
    await until(() => relay.count('eth_blockNumber') >= 1);
    await rpc(anvil.url, 'anvil_mine', ['0x2']);
    await expect(driveUntilSettled(clock, pending)).resolves.toMatchObject({ status: 'confirmed', confirmations: 3n });
    expect(relay.count('eth_getTransactionReceipt')).toBe(2);
  });

  it('sendAndWait: a replacement (same sender and nonce, mined instead) is expired, proven by two operators: nonce used by another transaction', async () => {
    const clock = createFakeClock();
    const relayA = await startRpcServer(proxyTo(anvil.url));
    const relayB = await startRpcServer(proxyTo(anvil.url));
    const count = (method: string) => relayA.count(method) + relayB.count(method);
    await rpc(anvil.url, 'evm_setAutomine', [false]);
    try {
      const nonce = await evm.getTransactionCount(ACCOUNT_0, 'pending');
      const original = await signedTransfer({ nonce });
      const replacement = await signedTransfer({ nonce, value: 2n, maxFeePerGas: 4_000_000_000n, maxPriorityFeePerGas: 2_000_000_000n });
      const pending = clientOverTwo(relayA, relayB, clock).sendAndWait(original);
      // The waiter learned the sender from the pending transaction and saw the nonce still free.
      await until(() => count('eth_getTransactionCount') >= 2);
      // The sender, as both operators report it.
      expect(count('eth_getTransactionByHash')).toBe(2);
      await rpc(anvil.url, 'eth_sendRawTransaction', [replacement]);
      await rpc(anvil.url, 'evm_mine');
      const outcome = await driveUntilSettled(clock, pending);
      expect(outcome).toMatchObject({ status: 'expired', reason: 'nonce-used-by-another-transaction', nonce, dispatch: 'acknowledged' });
      expect((outcome as { from: string }).from.toLowerCase()).toBe(ACCOUNT_0.toLowerCase());
      expect(count('eth_sendRawTransaction')).toBe(1);
      // Both operators were asked the count and the last receipt look.
      expect([relayA.count('eth_getTransactionCount'), relayB.count('eth_getTransactionCount')].every((n) => n >= 1)).toBe(true);
    } finally {
      await rpc(anvil.url, 'evm_setAutomine', [true]);
    }
  });

  it('sendAndWait is unknown at the deadline while nothing mines it, and never resends', async () => {
    const clock = createFakeClock();
    const relay = await startRpcServer(proxyTo(anvil.url));
    await rpc(anvil.url, 'evm_setAutomine', [false]);
    try {
      const raw = await signedTransfer();
      const pending = clientOver(relay, clock).sendAndWait(raw, { timeoutMs: 3_000 });
      await driveUntilSettled(clock, pending);
      await expect(pending).resolves.toMatchObject({ status: 'unknown', receipt: null, dispatch: 'acknowledged' });
      expect(relay.count('eth_sendRawTransaction')).toBe(1);
    } finally {
      await rpc(anvil.url, 'evm_mine');
      await rpc(anvil.url, 'evm_setAutomine', [true]);
    }
  });
});

describe('getLogs over 3 000 blocks of events from anvil behind a provider-like range limit', () => {
  let anvil: AnvilInstance;
  let direct: HttpTransportPool;
  let limited: HttpTransportPool;

  beforeAll(async () => {
    anvil = await startAnvil();
    direct = new HttpTransportPool({ endpoints: [{ url: anvil.url }], chain: 'evm' });
  }, 30_000);
  afterAll(async () => {
    await direct?.close();
    await limited?.close();
    await closeAllServers();
    await anvil?.stop();
  });

  it('returns the same logs as one unlimited query', async () => {
    const deployHash = (await rpc(anvil.url, 'eth_sendTransaction', [{ from: ACCOUNT_0, data: INIT, gas: '0x30000' }])) as string;
    // anvil mines right after answering the send: wait (bounded) for the receipt.
    type Receipt = { contractAddress: string; blockNumber: string } | null;
    const receiptOf = async () => (await rpc(anvil.url, 'eth_getTransactionReceipt', [deployHash])) as Receipt;
    let receipt = await receiptOf();
    for (let i = 0; i < 400 && receipt === null; i++) {
      await sleep(5);
      receipt = await receiptOf();
    }
    if (receipt === null) throw new Error('the contract was not deployed within 2 s');
    const deployed = receipt;
    const first = BigInt(deployed.blockNumber) + 1n;
    // 3 000 blocks of events: 300 calls, each mined in the first of ten blocks (automine off,
    // anvil_mine), so the logs spread over the whole range and across every 1 000-block part.
    await rpc(anvil.url, 'evm_setAutomine', [false]);
    const nonce = BigInt((await rpc(anvil.url, 'eth_getTransactionCount', [ACCOUNT_0, 'latest'])) as string);
    for (let i = 0; i < 300; i++) {
      const data = `0x${i.toString(16).padStart(8, '0')}`;
      await rpc(anvil.url, 'eth_sendTransaction', [{ from: ACCOUNT_0, to: deployed.contractAddress, data, gas: '0x10000', nonce: `0x${(nonce + BigInt(i)).toString(16)}` }]);
      await rpc(anvil.url, 'anvil_mine', ['0xa']);
    }
    await rpc(anvil.url, 'evm_setAutomine', [true]);
    const last = BigInt((await rpc(anvil.url, 'eth_blockNumber')) as string);
    expect(last - first + 1n).toBe(3_000n);

    // QuickNode's answer for a range above its limit (413 + -32614), here at 1 000 blocks.
    const refusing = await startRpcServer(
      proxyTo(anvil.url, (method, params, { res }) => {
        if (method !== 'eth_getLogs') return false;
        const [{ fromBlock, toBlock }] = params as [{ fromBlock: string; toBlock: string }];
        if (BigInt(toBlock) - BigInt(fromBlock) + 1n <= 1_000n) return false;
        const body = JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32614, message: 'eth_getLogs is limited to a 1,000 range' } });
        res.writeHead(413, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.end(body);
        return true;
      }),
    );
    limited = new HttpTransportPool({ endpoints: [{ url: refusing.url }], chain: 'evm', retry: { maxRetries: 0 } });
    const filter = { address: deployed.contractAddress, topics: [TOPIC], fromBlock: first, toBlock: last };

    const split = await createEvmClient(limited).getLogs(filter);
    const unlimited = await createEvmClient(direct).getLogs(filter);
    expect(unlimited).toHaveLength(300);
    expect(split).toEqual(unlimited);
    expect(split.map((l) => BigInt(l.data))).toEqual(Array.from({ length: 300 }, (_, i) => BigInt(i)));
    expect(split.map((l) => l.blockNumber)).toEqual(Array.from({ length: 300 }, (_, i) => first + BigInt(i) * 10n));
    const ranges = refusing.received.filter((r) => r.method === 'eth_getLogs').map((r) => (r.params as [{ fromBlock: string; toBlock: string }])[0]);
    expect(ranges).toHaveLength(4);
    expect(ranges.slice(1).every((r) => BigInt(r.toBlock) - BigInt(r.fromBlock) + 1n <= 1_000n)).toBe(true);
  }, 120_000);
});
