/**
 * EVM sessions over scripted nodes (fake clock, in-memory executor): three operators, one
 * node 2 blocks behind (inside the sync allowance). Each node answers from its own head: a
 * receipt only once its block is mined there, `latest` state as of its head (the balance is
 * the block number, so an older answer is visible as a smaller number).
 */
import { describe, expect, it } from 'vitest';
import { isTransportError } from '../../src/errors/transport-error.js';
import type { ExecuteRequest, RawOutcome } from '../../src/http/executor.js';
import { ok } from '../helpers/scripted-executor.js';
import { createTestPool, track, type TestPool } from '../pool/pool-fixtures.js';
import type { HttpTransportPoolOptions } from '../../src/config/types.js';

const TX = `0x${'ab'.repeat(32)}`;
const ADDRESS = `0x${'11'.repeat(20)}`;
const MINED_AT = 12;
const hex = (n: number) => `0x${n.toString(16)}`;
const blockHash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

interface Node {
  head: () => number;
  /** Answers `null` for receipts whatever its head (a node that lost the transaction). */
  forgetful?: boolean;
}

function rpcError(id: number, code: number, message: string): RawOutcome {
  return { type: 'response', status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }) };
}

/** The block a state read asks for: its number, or the node's head for `latest` / omitted / a hash of a known block. */
function blockOf(param: unknown, head: number): number | undefined {
  if (param === undefined || param === 'latest') return head;
  if (typeof param === 'string') return Number(BigInt(param));
  const { blockHash: hash } = param as { blockHash: string };
  return Number(BigInt(hash));
}

function evmNode(node: Node) {
  return (request: ExecuteRequest, id: number): RawOutcome => {
    const { method, params } = JSON.parse(request.body) as { method: string; params: unknown[] };
    const head = node.head();
    switch (method) {
      case 'eth_blockNumber':
        return ok(hex(head), id);
      case 'eth_getTransactionReceipt':
        return ok(head >= MINED_AT && node.forgetful !== true ? { transactionHash: TX, blockNumber: hex(MINED_AT), blockHash: blockHash(MINED_AT), status: '0x1' } : null, id);
      case 'eth_getBlockByNumber': {
        const number = params[0] === 'latest' ? head : Number(BigInt(params[0] as string));
        return ok(number <= head ? { number: hex(number), hash: blockHash(number), transactions: [] } : null, id);
      }
      case 'eth_getBalance':
      case 'eth_call': {
        const block = blockOf(params[1], head)!;
        return block > head ? rpcError(id, -32000, 'header not found') : ok(hex(block), id);
      }
      default:
        return ok(null, id);
    }
  };
}

const ENDPOINTS = [
  { id: 'a', url: 'https://a.alpha-rpc.com/' },
  { id: 'b', url: 'https://b.beta-node.net/' },
  { id: 'c', url: 'https://c.gamma-node.org/' },
];

/** Round-robin (as a load balancer does), no hedges, no operator cap: what each node receives is the rotation's. */
function pool(nodes: Record<string, Node>, options: Partial<HttpTransportPoolOptions> = {}): TestPool {
  const t = createTestPool(ENDPOINTS, { chain: 'evm', balance: false, hedge: false, concentration: { maxOperatorShare: 0 }, ...options });
  for (const [id, node] of Object.entries(nodes)) t.executor.script(id, evmNode(node));
  return t;
}

/** Which endpoint got each request from `from` on, and its method. */
const sentSince = (t: TestPool, from: number) => t.executor.received.slice(from).map((r) => `${r.endpointId}:${r.method}`);

async function warmHeads(t: TestPool): Promise<void> {
  for (let i = 0; i < 6; i++) await t.pool.request('eth_blockNumber');
}

describe('an EVM session: reads at or past its floor', () => {
  it('after a receipt, sends every receipt and latest-state read only to nodes known at or past its block; the plain pool reads the node behind', async () => {
    const t = pool({ a: { head: () => 12 }, b: { head: () => 12 }, c: { head: () => 10 } });
    await warmHeads(t);
    const session = t.pool.session();
    let receipt: unknown = null;
    for (let i = 0; i < 3 && receipt === null; i++) receipt = await session.request('eth_getTransactionReceipt', [TX]);
    expect(session.floor('block')).toBe(12n);

    const from = t.executor.received.length;
    const session_ = { nulls: 0, older: 0 };
    for (let i = 0; i < 30; i++) {
      if ((await session.request('eth_getTransactionReceipt', [TX])) === null) session_.nulls++;
      if (Number(await session.request('eth_getBalance', [ADDRESS, 'latest'])) < MINED_AT) session_.older++;
    }
    expect(session_).toEqual({ nulls: 0, older: 0 });
    const sent = sentSince(t, from);
    expect(sent.filter((s) => s.startsWith('c:'))).toEqual([]);
    // The two nodes at the floor still share the reads (the floor does not pick one).
    expect(sent.filter((s) => s.startsWith('a:')).length).toBeGreaterThanOrEqual(20);
    expect(sent.filter((s) => s.startsWith('b:')).length).toBeGreaterThanOrEqual(20);

    const plain = { nulls: 0, older: 0 };
    for (let i = 0; i < 30; i++) {
      if ((await t.pool.request('eth_getTransactionReceipt', [TX])) === null) plain.nulls++;
      if (Number(await t.pool.request('eth_getBalance', [ADDRESS, 'latest'])) < MINED_AT) plain.older++;
    }
    expect(plain.nulls + plain.older).toBeGreaterThanOrEqual(15);
    await t.pool.close();
  });

  it('a receipt raises the known head of the node that served it: the next read at the floor goes there without asking for heads', async () => {
    let head = 10;
    const t = pool({ a: { head: () => head }, b: { head: () => head }, c: { head: () => head } });
    await warmHeads(t);
    head = 12;
    const session = t.pool.session();
    expect(await session.request('eth_getTransactionReceipt', [TX])).not.toBeNull();
    const servedBy = t.executor.received.at(-1)!.endpointId;
    expect(t.pool.snapshot().endpoints.find((e) => e.endpointId === servedBy)!.head?.value).toBe(12n);
    const from = t.executor.received.length;
    expect(await session.request('eth_getBalance', [ADDRESS])).toBe(hex(12));
    expect(sentSince(t, from)).toEqual([`${servedBy}:eth_getBalance`]);
    await t.pool.close();
  });

  it('reads the floor does not constrain (an old block) stay balanced over every node, the one behind too', async () => {
    const t = pool({ a: { head: () => 12 }, b: { head: () => 12 }, c: { head: () => 10 } });
    await warmHeads(t);
    const session = t.pool.session();
    session.raiseFloor('block', 12n);
    const from = t.executor.received.length;
    for (let i = 0; i < 30; i++) await session.request('eth_getBalance', [ADDRESS, hex(5)]);
    // Round-robin: a third of them each (the rotation's phase decides which one gets the eleventh).
    expect(sentSince(t, from).filter((s) => s.startsWith('c:')).length).toBeGreaterThanOrEqual(9);
    await t.pool.close();
  });

  it('when no node is known at the floor, asks the nodes for their heads and answers once one reaches it, a block at a time inside the deadline', async () => {
    let t!: TestPool;
    const ahead = () => (t.clock.now() >= 2_000 ? 14 : 12);
    t = pool({ a: { head: ahead }, b: { head: () => 12 }, c: { head: () => 12 } });
    await warmHeads(t);
    const session = t.pool.session();
    session.raiseFloor('block', 14n);
    const from = t.executor.received.length;
    const read = track(session.request('eth_getBalance', [ADDRESS]), t.clock);
    for (let step = 0; step < 100 && !read.settled; step++) await t.clock.advance(50);
    expect(read.error).toBeUndefined();
    expect(read.value).toBe(hex(14));
    expect(read.atMs).toBeGreaterThanOrEqual(2_000);
    expect(read.atMs).toBeLessThanOrEqual(3_000);
    // Paced: each node is asked its head once a block (1 000 ms) at most, and only node a got the read.
    const sent = sentSince(t, from);
    expect(sent.filter((s) => s.endsWith(':eth_blockNumber')).length).toBeLessThanOrEqual(9);
    expect(sent.filter((s) => s.endsWith(':eth_getBalance'))).toEqual(['a:eth_getBalance']);
    expect(t.clock.pendingTimers).toBe(0);
    await t.pool.close();
  });

  it('fails NO_ENDPOINT (naming the head, not a URL) when the deadline comes before any node reaches the floor', async () => {
    const t = pool({ a: { head: () => 12 }, b: { head: () => 12 }, c: { head: () => 12 } });
    await warmHeads(t);
    const session = t.pool.session();
    session.raiseFloor('block', 100n);
    const read = track(session.request('eth_getBalance', [ADDRESS], { timeoutMs: 3_000 }), t.clock);
    for (let step = 0; step < 100 && !read.settled; step++) await t.clock.advance(50);
    expect(isTransportError(read.error) && read.error.code).toBe('NO_ENDPOINT');
    expect((read.error as { context: unknown }).context).toEqual({ kind: 'read', minHead: '100' });
    expect(String((read.error as Error).message)).not.toContain('example');
    expect(read.atMs).toBeLessThanOrEqual(3_000);
    expect(t.executor.received.filter((r) => r.method === 'eth_getBalance')).toEqual([]);
    expect(t.clock.pendingTimers).toBe(0);
    await t.pool.close();
  });

  it('a call with a bad minHead fails INVALID_INPUT and sends nothing', async () => {
    const t = pool({ a: { head: () => 12 }, b: { head: () => 12 }, c: { head: () => 12 } });
    const error = await t.pool.request('eth_getBalance', [ADDRESS], { minHead: -1n }).catch((e: unknown) => e);
    expect(isTransportError(error) && error.code).toBe('INVALID_INPUT');
    expect(t.executor.received).toEqual([]);
    await t.pool.close();
  });
});

describe('empty answers the session proves wrong (retryEmpty)', () => {
  it('asks another operator at once for a receipt the session saw, at no cost to the node that answered null', async () => {
    const t = pool({ a: { head: () => 12 }, b: { head: () => 12, forgetful: true }, c: { head: () => 10 } });
    await warmHeads(t);
    const session = t.pool.session();
    let receipt: unknown = null;
    for (let i = 0; i < 4 && receipt === null; i++) receipt = await session.request('eth_getTransactionReceipt', [TX]);
    expect(receipt).not.toBeNull();
    const failuresBefore = t.pool.snapshot().roles.find((r) => r.endpointId === 'b')!.failures;
    const timersBefore = t.clock.pendingTimers;
    const from = t.executor.received.length;
    const reads = [];
    for (let i = 0; i < 6; i++) reads.push(await session.request('eth_getTransactionReceipt', [TX]));
    expect(reads.every((r) => r !== null)).toBe(true);
    const sent = sentSince(t, from);
    // Node b answered null every time it was asked, and each time node a was asked next; c (behind) never.
    expect(sent.filter((s) => s === 'b:eth_getTransactionReceipt').length).toBeGreaterThanOrEqual(2);
    expect(sent.filter((s) => s.startsWith('c:'))).toEqual([]);
    expect(t.pool.snapshot().roles.find((r) => r.endpointId === 'b')!.failures).toBe(failuresBefore);
    // The session keeps none: once the pool's attempt timer queue has run idle, the count is back where it was.
    await t.clock.advance(30_000);
    expect(t.clock.pendingTimers).toBe(timersBefore);
    await t.pool.close();
  });

  it('a block at or below the floor that comes back null is asked again; retryEmpty off for the method returns the null', async () => {
    const nodes = { a: { head: () => 12 }, b: { head: () => 12, forgetful: true }, c: { head: () => 10 } };
    for (const [retryEmpty, expected] of [
      [undefined, 0],
      [{ methods: { eth_getTransactionReceipt: false } }, 1],
      [false, 1],
    ] as const) {
      const t = pool(nodes, retryEmpty === undefined ? {} : { retryEmpty });
      await warmHeads(t);
      const session = t.pool.session();
      let receipt: unknown = null;
      for (let i = 0; i < 4 && receipt === null; i++) receipt = await session.request('eth_getTransactionReceipt', [TX]);
      let nulls = 0;
      // Round-robin over a and b: one of two reads lands on the forgetful node.
      for (let i = 0; i < 2; i++) if ((await session.request('eth_getTransactionReceipt', [TX])) === null) nulls++;
      expect(nulls).toBe(expected);
      await t.pool.close();
    }
  });

  it('rejects a retryEmpty that is not a boolean or { methods?, blockTimeMs? }', () => {
    expect(() => pool({}, { retryEmpty: { blockTimeMs: 0 } })).toThrow(/retryEmpty/);
    expect(() => pool({}, { retryEmpty: 'yes' as unknown as boolean })).toThrow(/retryEmpty/);
  });
});

describe('session.pin(): one operation, one block', () => {
  const blocksSent = (t: TestPool, from: number) =>
    t.executor.received.slice(from).filter((r) => r.method !== 'eth_blockNumber' && r.method !== 'eth_getBlockByNumber').map((r) => (JSON.parse(r.body) as { params: unknown[] }).params.at(-1));

  it('sends every latest read of the operation at the one block the session saw first, even as the head moves; eth_blockNumber answers it', async () => {
    let head = 12;
    const t = pool({ a: { head: () => head }, b: { head: () => head }, c: { head: () => head } });
    await warmHeads(t);
    const op = t.pool.session().pin();
    const from = t.executor.received.length;
    expect(await op.request('eth_getBalance', [ADDRESS])).toBe(hex(12));
    head = 13;
    expect(await op.request('eth_call', [{ to: ADDRESS, data: '0x' }, 'latest'])).toBe(hex(12));
    expect(await op.request('eth_blockNumber')).toBe(hex(12));
    expect(await op.request('eth_getBalance', [ADDRESS, hex(3)])).toBe(hex(3));
    expect(blocksSent(t, from)).toEqual([hex(12), hex(12), hex(3)]);
    // One eth_blockNumber fixed the block; the operation's own eth_blockNumber sent nothing.
    expect(t.executor.received.slice(from).filter((r) => r.method === 'eth_blockNumber')).toHaveLength(1);
    await t.pool.close();
  });

  it("by: 'hash' sends state reads at the block's hash (EIP-1898); a given block sends no look-up of the head", async () => {
    const t = pool({ a: { head: () => 12 }, b: { head: () => 12 }, c: { head: () => 12 } });
    await warmHeads(t);
    const session = t.pool.session();
    let from = t.executor.received.length;
    expect(await session.pin({ block: 7n, by: 'hash' }).request('eth_getBalance', [ADDRESS, 'latest'])).toBe(hex(7));
    expect(blocksSent(t, from)).toEqual([{ blockHash: blockHash(7) }]);
    expect(t.executor.received.slice(from).map((r) => r.method)).toEqual(['eth_getBlockByNumber', 'eth_getBalance']);
    from = t.executor.received.length;
    await session.pin({ block: 9n }).request('eth_getBalance', [ADDRESS]);
    expect(t.executor.received.slice(from).map((r) => r.method)).toEqual(['eth_getBalance']);
    expect(() => session.pin({ block: -1n })).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
    await t.pool.close();
  });
});
