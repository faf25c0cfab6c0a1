/**
 * Read-after-write on real anvils (issue 27): three anvils as one chain, each behind a
 * loopback load balancer (`load-balancer.ts`) that records what reaches it, node 2 kept one
 * or two blocks behind (inside the sync allowance): a send reaches nodes 0 and 1 at once and
 * node 2 only when it mines that block, so every node holds the same transactions in the same
 * blocks. Cycles of send → wait for the receipt → read the receipt again and the recipient's
 * balance count the wrong answers: a `null` receipt, a balance from before the send. Shared
 * by `test/consistency/anvil-read-after-write.test.ts` and the session bench.
 */
import { privateKeyToAccount } from 'viem/accounts';
import type { RpcRequester } from '../../src/api/request-options.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { startAnvil, type AnvilInstance } from './anvil.js';
import { startLoadBalancer } from './load-balancer.js';

/** Anvil's default account 0 (its well-known test key) sends 1 wei per cycle to account 1. */
const SENDER_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
export const RECIPIENT = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

async function rpc(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return ((await response.json()) as { result?: unknown }).result;
}

/** Reads that reached a node below the session's floor at that moment (heads asked for, `eth_blockNumber`, are not reads of data). */
export interface Observed {
  belowFloor: number;
  reads: number;
}

/** What one cycle does, through a requester or a library's client. */
export interface App {
  send(raw: `0x${string}`): Promise<`0x${string}`>;
  /**
   * Waits until the app sees the receipt; false when it gave up — a wrong answer too: viem
   * waits for the next block once its receipt read reached a node without the transaction,
   * and in these cycles no block comes until the next send.
   */
  waitForReceipt(hash: `0x${string}`): Promise<boolean>;
  /** The receipt read again: null when the node had none. */
  receipt(hash: `0x${string}`): Promise<unknown>;
  balance(): Promise<bigint>;
}

export class LaggingChain {
  readonly heads = [0, 0, 0];
  readonly #late: string[] = [];
  #nonce = 0;

  private constructor(readonly nodes: readonly AnvilInstance[]) {}

  /** Starts the three anvils (`--no-mining`): `stop()` them when done. */
  static async start(): Promise<LaggingChain> {
    return new LaggingChain(await Promise.all([0, 1, 2].map(() => startAnvil({ args: ['--no-mining'] }))));
  }

  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.stop()));
  }

  /** A pool over the three nodes' load balancers, round-robin as a load balancer is; `floor` says a session's floor when a request reaches a node. */
  async pool(observed: Observed, floor: () => bigint | undefined): Promise<HttpTransportPool> {
    const balancers = await Promise.all(
      this.nodes.map((node, index) =>
        startLoadBalancer([node.url], {
          intercept: { eth_sendRawTransaction: (body) => this.#send(body) },
          onForward: (_backend, method) => {
            if (method === 'eth_blockNumber') return;
            observed.reads++;
            const at = floor();
            if (at !== undefined && BigInt(this.heads[index]!) < at) observed.belowFloor++;
          },
        }),
      ),
    );
    return new HttpTransportPool({
      endpoints: balancers.map((lb, i) => ({ id: `node-${i}`, url: lb.url, operator: `operator-${i}` })),
      chain: 'evm',
      balance: false,
      hedge: false,
      concentration: { maxOperatorShare: 0 },
      // The three share one host (127.0.0.1): keep the host breaker out.
      reputation: { hostBreaker: { minFailures: 1_000_000 } },
      retryEmpty: { blockTimeMs: 20 },
    });
  }

  /** `count` send → receipt → re-read cycles through `app`; how many answers were wrong. */
  async cycles(app: App, count: number): Promise<{ nullReceipts: number; olderBalances: number }> {
    const wrong = { nullReceipts: 0, olderBalances: 0 };
    const before = BigInt((await rpc(this.nodes[0]!.url, 'eth_getBalance', [RECIPIENT, 'latest'])) as string);
    for (let i = 0; i < count; i++) {
      const raw = await privateKeyToAccount(SENDER_KEY).signTransaction({
        chainId: 31_337,
        to: RECIPIENT,
        value: 1n,
        nonce: this.#nonce++,
        gas: 21_000n,
        maxFeePerGas: 2_000_000_000n,
        maxPriorityFeePerGas: 1_000_000_000n,
      });
      const hash = await app.send(raw);
      await this.#mine(1 + (i % 2));
      if (!(await app.waitForReceipt(hash)) || (await app.receipt(hash)) === null) wrong.nullReceipts++;
      if ((await app.balance()) < before + BigInt(i + 1)) wrong.olderBalances++;
    }
    return wrong;
  }

  /** A send (one JSON-RPC body): into nodes 0 and 1 now, into node 2 when it mines its block; node 0's answer. */
  async #send(body: string): Promise<string> {
    this.#late.push((JSON.parse(body) as { params: [string] }).params[0]);
    const answers = await Promise.all(this.nodes.slice(0, 2).map((node) => fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((r) => r.text())));
    return answers[0]!;
  }

  /** Mines one block on nodes 0 and 1; node 2 catches up to `lag` blocks behind, one block (one transaction) at a time. */
  async #mine(lag: number): Promise<void> {
    await Promise.all([0, 1].map((i) => rpc(this.nodes[i]!.url, 'anvil_mine', ['0x1'])));
    this.heads[0]!++;
    this.heads[1]!++;
    while (this.heads[0]! - this.heads[2]! > lag) {
      await rpc(this.nodes[2]!.url, 'eth_sendRawTransaction', [this.#late.shift()]);
      await rpc(this.nodes[2]!.url, 'anvil_mine', ['0x1']);
      this.heads[2]!++;
    }
  }
}

/** The cycle's calls as raw JSON-RPC through `requester` (a pool or a session). */
export function rawApp(requester: RpcRequester): App {
  const receipt = (hash: string) => requester.request('eth_getTransactionReceipt', [hash]);
  return {
    send: async (raw) => (await requester.request('eth_sendRawTransaction', [raw])) as `0x${string}`,
    async waitForReceipt(hash) {
      for (let i = 0; i < 100; i++) if ((await receipt(hash)) !== null) return true;
      return false;
    },
    receipt,
    balance: async () => BigInt((await requester.request('eth_getBalance', [RECIPIENT, 'latest'])) as string),
  };
}
