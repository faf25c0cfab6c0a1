/**
 * After a 3-block outage of the node in use (anvil, `--block-time 1`, behind a TCP proxy
 * that is killed then revived): how long until the caller has every block mined while it
 * was down. Three clients watch the same node through the same outage, one run: the pool
 * (`onNewHeads`, backfill on), a raw `ws` client that reconnects and resubscribes, and
 * viem's `watchBlocks` over `fallback([webSocket, http])` with `emitMissed`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createPublicClient, fallback, http, webSocket } from 'viem';
import { WebSocket } from 'ws';
import { createEvmClient } from '../src/evm/index.js';
import { HttpTransportPool } from '../src/pool/http-transport-pool.js';
import { startAnvil } from '../test/helpers/anvil.js';
import { startTcpProxy } from '../test/helpers/tcp-proxy.js';

/** Block numbers a client has, and when it had each (performance.now()). */
class Seen {
  readonly at = new Map<bigint, number>();
  add(n: bigint): void {
    if (!this.at.has(n)) this.at.set(n, performance.now());
  }
  /** When every number in `from`…`to` was there; undefined if one never came. */
  completeAt(from: bigint, to: bigint): number | undefined {
    let last = 0;
    for (let n = from; n <= to; n++) {
      const at = this.at.get(n);
      if (at === undefined) return undefined;
      last = Math.max(last, at);
    }
    return last;
  }
}

/** A raw `ws` client that reconnects every 250 ms and subscribes again; it never asks for what it missed. */
function rawReconnecting(url: string, seen: Seen): () => void {
  let closed = false;
  let socket: WebSocket | undefined;
  const connect = () => {
    if (closed) return;
    const ws = new WebSocket(url);
    socket = ws;
    ws.on('open', () => ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] })));
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString()) as { params?: { result: { number: string } } };
      if (message.params !== undefined) seen.add(BigInt(message.params.result.number));
    });
    ws.on('error', () => undefined);
    ws.on('close', () => void sleep(250).then(connect));
  };
  connect();
  return () => {
    closed = true;
    socket?.terminate();
  };
}

async function blockNumber(url: string): Promise<bigint> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }) });
  return BigInt(((await response.json()) as { result: string }).result);
}

export interface OutageResult {
  readonly missed: number;
  /** ms from the node's return to the caller having every missed block; undefined: not within the wait. */
  readonly pool: number | undefined;
  readonly rawWs: number | undefined;
  readonly viem: number | undefined;
}

export async function benchOutage(options: { readonly outageMs: number; readonly waitMs: number }): Promise<OutageResult> {
  const anvil = await startAnvil({ args: ['--block-time', '1'] });
  const proxy = await startTcpProxy(anvil.port);
  const wsUrl = proxy.url.replace('http:', 'ws:');
  const pool = new HttpTransportPool({
    endpoints: [
      { id: 'a', url: proxy.url, wsUrl, tier: 0 },
      { id: 'b', url: anvil.url, tier: 1 },
    ],
  });
  const stops: (() => unknown)[] = [];
  try {
    const seen = { pool: new Seen(), rawWs: new Seen(), viem: new Seen() };
    const heads = await createEvmClient(pool).onNewHeads();
    stops.push(() => heads.close());
    void (async () => {
      for await (const item of heads) if (item.kind === 'notification') seen.pool.add(item.value.number);
    })();
    stops.push(rawReconnecting(wsUrl, seen.rawWs));
    const client = createPublicClient({ transport: fallback([webSocket(wsUrl), http(anvil.url)]) });
    stops.push(client.watchBlocks({ emitMissed: true, onBlock: (block) => block.number !== null && seen.viem.add(block.number), onError: () => undefined }));
    // Every client live with two blocks before the node dies.
    await sleep(2_500);
    const lastBefore = await blockNumber(anvil.url);
    await proxy.kill();
    await sleep(options.outageMs);
    const tipAtReturn = await blockNumber(anvil.url);
    await proxy.revive();
    const revivedAt = performance.now();
    await sleep(options.waitMs);
    const after = (s: Seen) => {
      const at = s.completeAt(lastBefore + 1n, tipAtReturn);
      return at === undefined ? undefined : Math.max(0, at - revivedAt);
    };
    return { missed: Number(tipAtReturn - lastBefore), pool: after(seen.pool), rawWs: after(seen.rawWs), viem: after(seen.viem) };
  } finally {
    // viem's unwatch may never settle once its socket was lost: each stop gets a second, what matters was measured.
    for (const stop of stops) await Promise.race([Promise.resolve().then(stop).catch(() => undefined), sleep(1_000)]);
    await pool.close();
    await proxy.close();
    await anvil.stop();
  }
}
