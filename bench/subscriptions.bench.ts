/**
 * Subscriptions: notifications per second through the pool against a raw `ws` client on the
 * same server (a separate process flooding slot notifications); the time from a silent
 * socket to the first notification from another endpoint (fixture servers, real time,
 * default and lowered settings); failover with `redundancy` 2 against 1; heap per idle
 * subscription.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { parseJsonExact } from '../src/jsonrpc/exact-json.js';
import { HttpTransportPool } from '../src/pool/http-transport-pool.js';
import { createFixtureServer } from '../src/testing/fixture-server.js';
import type { SubscriptionSettings } from '../src/subscriptions/types.js';
import { settledHeap } from './heap.bench.js';
import { benchOutage } from './subscription-outage.js';
import { gc, median, table } from './util.js';

export interface SubscriptionBenchOptions {
  readonly notifications: number;
  readonly rounds: number;
  readonly idleSubscriptions: number;
  /** Runs per redundancy and fault of the failover measure (median reported). */
  readonly failoverRuns: number;
}

async function startFlood(count: number): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./ws-flood-server.js', import.meta.url)), String(count)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
  });
  return { url: `ws://127.0.0.1:${port}`, child };
}

interface Run {
  /** Wall-clock notifications per second (bounded by the server process and the machine's load). */
  readonly perSecond: number;
  /** This process's CPU time per notification, in µs (user + system): the client's own cost. */
  readonly cpuMicros: number;
}

/**
 * Raw `ws`: subscribe, parse every frame, count notifications. `parse` is `JSON.parse` (rounds
 * u64s above 2^53) or `parseJsonExact` (the exactness the pool gives every notification).
 */
async function rawClient(url: string, count: number, parse: (text: string) => unknown = JSON.parse): Promise<Run> {
  const socket = new WebSocket(url, { perMessageDeflate: false });
  await new Promise((resolve) => socket.once('open', resolve));
  let received = 0;
  let started = 0;
  let lastSlot = 0;
  const cpu = process.cpuUsage();
  const done = new Promise<number>((resolve) => {
    socket.on('message', (data) => {
      const message = parse(data.toString()) as { params?: { result: { slot: number } } };
      if (message.params === undefined) return;
      if (received === 0) started = performance.now();
      lastSlot = message.params.result.slot;
      if (++received === count) resolve(performance.now() - started);
    });
  });
  socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'slotSubscribe', params: [] }));
  const ms = await done;
  const used = process.cpuUsage(cpu);
  socket.terminate();
  void lastSlot;
  return { perSecond: (count - 1) / (ms / 1000), cpuMicros: (used.user + used.system) / count };
}

/** The same through `pool.subscribe` and `for await`; also the items lost to overflow. */
async function throughPool(url: string, count: number): Promise<Run & { overflowed: number }> {
  const pool = new HttpTransportPool({
    endpoints: [{ id: 'flood', url: url.replace('ws:', 'http:'), wsUrl: url }],
    subscriptions: { bufferSize: 1024, pingIntervalMs: 0 },
  });
  const cpu = process.cpuUsage();
  const sub = await pool.subscribe('slotSubscribe', []);
  let received = 0;
  let overflowed = 0;
  let started = 0;
  let ms = 0;
  for await (const item of sub) {
    if (item.kind === 'overflow') overflowed += item.dropped;
    if (item.kind !== 'notification') continue;
    if (received === 0) started = performance.now();
    if (++received + overflowed >= count) {
      ms = performance.now() - started;
      break;
    }
  }
  const used = process.cpuUsage(cpu);
  await pool.close();
  return { perSecond: (count - 1) / (ms / 1000), cpuMicros: (used.user + used.system) / count, overflowed };
}

/** Time from a node going silent (pongs still answered) to the first notification from the other one, real time. */
async function silentToNext(settings: SubscriptionSettings): Promise<number> {
  const a = await createFixtureServer({ fixtures: [], websocket: { slotIntervalMs: 400 } });
  const b = await createFixtureServer({ fixtures: [], websocket: { slotIntervalMs: 400 } });
  const pool = new HttpTransportPool({
    endpoints: [
      { id: 'a', url: a.url, wsUrl: a.wsUrl!, tier: 0 },
      { id: 'b', url: b.url, wsUrl: b.wsUrl!, tier: 1 },
    ],
    subscriptions: settings,
  });
  try {
    const sub = await pool.subscribe('slotSubscribe', []);
    await sub.next();
    a.ws!.setSilent(true);
    const silentAt = performance.now();
    for await (const item of sub) if (item.kind === 'notification' && item.endpointId === 'b') break;
    return performance.now() - silentAt;
  } finally {
    await pool.close();
    await Promise.all([a.close(), b.close()]);
  }
}

type Fault = 'drop' | 'silent';

/**
 * Failover with `redundancy` 1 or 2, real time: two nodes ticking slots every 400 ms (each
 * its own phase); the one that brought the last notification fails — its socket reset
 * (`drop`, a crash) or silent with pongs still answered (`silent`, a frozen node) — and the
 * clock runs until the next notification. `missed`: slots the caller got as a `gap` instead.
 */
async function failoverToNext(redundancy: 1 | 2, fault: Fault): Promise<{ ms: number; missed: number }> {
  const nodes = await Promise.all([0, 1].map(() => createFixtureServer({ fixtures: [], websocket: { slotIntervalMs: 400 } })));
  const pool = new HttpTransportPool({
    endpoints: nodes.map((node, i) => ({ id: `n${i}`, url: node.url, wsUrl: node.wsUrl!, operator: `operator-${i}` })),
    subscriptions: { redundancy },
  });
  try {
    const sub = await pool.subscribe('slotSubscribe', []);
    let last = await sub.next();
    // Both legs live (a no-op with redundancy 1) before the fault.
    while (pool.snapshot().subscriptions.reduce((n, e) => n + e.subscriptions, 0) < redundancy) last = await sub.next();
    const inUse = nodes[Number(last.value!.endpointId.slice(1))]!;
    if (fault === 'drop') inUse.ws!.drop();
    else inUse.ws!.setSilent(true);
    const faultAt = performance.now();
    let missed = 0;
    for await (const item of sub) {
      if (item.kind === 'gap') missed += Number(item.to - item.from + 1n);
      if (item.kind === 'notification') break;
    }
    return { ms: performance.now() - faultAt, missed };
  } finally {
    await pool.close();
    await Promise.all(nodes.map((node) => node.close()));
  }
}

/** Median failover over `runs` runs per redundancy and fault, alternating redundancy 1 and 2. */
async function failovers(runs: number) {
  const out: Record<Fault, Record<1 | 2, { ms: number; missed: number }>> = { drop: { 1: { ms: 0, missed: 0 }, 2: { ms: 0, missed: 0 } }, silent: { 1: { ms: 0, missed: 0 }, 2: { ms: 0, missed: 0 } } };
  for (const fault of ['drop', 'silent'] as const) {
    const got: Record<1 | 2, { ms: number; missed: number }[]> = { 1: [], 2: [] };
    for (let run = 0; run < runs; run++) for (const redundancy of run % 2 === 0 ? ([1, 2] as const) : ([2, 1] as const)) got[redundancy].push(await failoverToNext(redundancy, fault));
    for (const redundancy of [1, 2] as const) out[fault][redundancy] = { ms: median(got[redundancy].map((r) => r.ms)), missed: median(got[redundancy].map((r) => r.missed)) };
  }
  return out;
}

/** Heap growth per open, idle `accountSubscribe` (client side only: the node is another process). */
async function heapPerSubscription(url: string, n: number): Promise<number> {
  const pool = new HttpTransportPool({ endpoints: [{ id: 'idle', url: url.replace('ws:', 'http:'), wsUrl: url }], subscriptions: { pingIntervalMs: 0 } });
  const warm = await pool.subscribe('accountSubscribe', ['warm']);
  const before = await settledHeap();
  const subs = [];
  for (let i = 0; i < n; i += 500) subs.push(...(await Promise.all(Array.from({ length: Math.min(500, n - i) }, (_, j) => pool.subscribe('accountSubscribe', [`acc${i + j}`])))));
  const after = await settledHeap();
  await Promise.all([warm, ...subs].map((s) => s.close()));
  await pool.close();
  return (after - before) / n;
}

export async function benchSubscriptions(options: SubscriptionBenchOptions) {
  const flood = await startFlood(options.notifications);
  try {
    const raw: Run[] = [];
    const pooled: Run[] = [];
    const exact: Run[] = [];
    let overflowed = 0;
    for (let round = 0; round < options.rounds; round++) {
      // Alternate the order: the machine's load drifts within a round.
      const poolFirst = round % 2 === 1;
      const first = poolFirst ? await throughPool(flood.url, options.notifications) : await rawClient(flood.url, options.notifications);
      const second = poolFirst ? await rawClient(flood.url, options.notifications) : await throughPool(flood.url, options.notifications);
      const pool = (poolFirst ? first : second) as Run & { overflowed: number };
      raw.push(poolFirst ? second : first);
      pooled.push(pool);
      overflowed += pool.overflowed;
      exact.push(await rawClient(flood.url, options.notifications, parseJsonExact));
    }
    const ratios = pooled.map((p, i) => p.perSecond / raw[i]!.perSecond);
    const cpuRatios = pooled.map((p, i) => raw[i]!.cpuMicros / p.cpuMicros);
    const silentDefault = await silentToNext({});
    const silentLow = await silentToNext({ minSilenceMs: 500, silenceFactor: 2 });
    const failover = await failovers(options.failoverRuns);
    const bytesPerSubscription = gc === undefined ? Number.NaN : await heapPerSubscription(flood.url, options.idleSubscriptions);
    const outage = await benchOutage({ outageMs: 3_200, waitMs: 12_000 });
    const filledIn = (ms: number | undefined) => (ms === undefined ? 'never (within 12 s)' : `${Math.round(ms)} ms`);
    const results = {
      notifications: options.notifications,
      rawPerSecond: median(raw.map((r) => r.perSecond)),
      poolPerSecond: median(pooled.map((r) => r.perSecond)),
      ratio: median(ratios),
      rawCpuMicros: median(raw.map((r) => r.cpuMicros)),
      poolCpuMicros: median(pooled.map((r) => r.cpuMicros)),
      cpuRatio: median(cpuRatios),
      exactCpuMicros: median(exact.map((r) => r.cpuMicros)),
      exactCpuRatio: median(pooled.map((p, i) => exact[i]!.cpuMicros / p.cpuMicros)),
      overflowed,
      silentToNextMs: { default: silentDefault, lowered: silentLow },
      failover,
      bytesPerIdleSubscription: bytesPerSubscription,
      outage,
    };
    const markdown = [
      table(
        ['measure', 'value', 'target'],
        [
          ['raw ws client (JSON.parse each frame)', `${Math.round(results.rawPerSecond).toLocaleString('en')} notifications/s`, ''],
          ['pool.subscribe + for await', `${Math.round(results.poolPerSecond).toLocaleString('en')} notifications/s`, ''],
          ['pool / raw, wall throughput (median of rounds)', results.ratio.toFixed(2), '≥ 0.9'],
          ['client CPU per notification: raw / pool', `${results.rawCpuMicros.toFixed(2)} µs / ${results.poolCpuMicros.toFixed(2)} µs`, ''],
          ['raw CPU ÷ pool CPU (median of rounds)', results.cpuRatio.toFixed(2), '≥ 0.9'],
          ['raw ws with exact u64 parsing (parseJsonExact, as the pool): CPU per notification', `${results.exactCpuMicros.toFixed(2)} µs`, ''],
          ['exact raw CPU ÷ pool CPU (median of rounds)', results.exactCpuRatio.toFixed(2), '≥ 0.9'],
          ['items dropped by overflow (bufferSize 1024)', overflowed, '0'],
          ['silent socket → first notification from another endpoint (defaults)', `${Math.round(silentDefault)} ms`, '< 5 000 ms'],
          ['same with minSilenceMs 500, silenceFactor 2', `${Math.round(silentLow)} ms`, ''],
          ...(['drop', 'silent'] as const).flatMap((fault) =>
            ([1, 2] as const).map((redundancy) => [
              `node in use ${fault === 'drop' ? 'crashes (socket reset)' : 'freezes (silent, pongs answered)'} → next notification, redundancy ${redundancy}`,
              `${Math.round(failover[fault][redundancy].ms)} ms, ${failover[fault][redundancy].missed} slot(s) missed`,
              redundancy === 2 ? 'about one slot (400 ms), 0 missed' : '',
            ]),
          ),
          ['heap per idle subscription', `${Math.round(bytesPerSubscription)} B`, ''],
          [`${outage.missed}-block outage of the node in use → caller has every missed block: pool (backfill)`, filledIn(outage.pool), ''],
          ['same, raw ws client that reconnects and resubscribes', filledIn(outage.rawWs), ''],
          ["same, viem watchBlocks over fallback([webSocket, http]), emitMissed", filledIn(outage.viem), ''],
        ],
      ),
      `\n${options.rounds} round(s) of ${options.notifications.toLocaleString('en')} slot notifications from a separate process; wall ratios per round: ${ratios.map((r) => r.toFixed(2)).join(', ')}; CPU ratios: ${cpuRatios.map((r) => r.toFixed(2)).join(', ')}.`,
    ].join('\n');
    return { results, markdown };
  } finally {
    flood.child.kill();
  }
}
