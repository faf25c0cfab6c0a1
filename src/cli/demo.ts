import { base64 } from '@scure/base';
import { createSeededRandom, systemClock, type Random } from '../clock.js';
import { isTransportError } from '../errors/transport-error.js';
import { HttpTransportPool } from '../pool/http-transport-pool.js';
import { createSolanaClient } from '../solana/client.js';
import { SOLANA_GENESIS_HASHES } from '../solana/clusters.js';
import { startDemoNode, type DemoFault, type DemoNode, type SendLedger } from './demo-nodes.js';
import { watchSlots, type DemoSubscriptionTally, type DemoSubscriptionTotals } from './demo-subscriptions.js';
import { admissionStateOf } from './admission-state.js';
import type { DemoProgress } from './demo-progress.js';

export interface DemoOptions {
  readonly durationMs: number;
  readonly seed: number;
  readonly concurrency: number;
  /** Told where the workload stands about every 100 ms while it runs (the CLI prints it on stderr). */
  readonly progress?: (progress: DemoProgress) => void;
  /** Called once the workload starts (`top --demo` samples only from then on). */
  readonly onStart?: () => void;
  /** Ends the workload early (`top --demo` on q / Ctrl-C). */
  readonly signal?: AbortSignal;
  /** Called with the demo's pool before the workload starts (`top --demo` serves its status). */
  readonly onPool?: (pool: HttpTransportPool) => Promise<void> | void;
}

export interface DemoEndpointRow {
  readonly endpoint: string;
  readonly fault: string;
  readonly requests: number;
  readonly successes: number;
  readonly rateLimited: number;
  readonly cooldowns: number;
  readonly score: number | null;
  readonly share: number;
  /** Reads first sent here that were hedged to another endpoint because this one was late. */
  readonly hedgedAway: number;
  /**
   * What admission does with the endpoint's reads at the end of the run: `excluded: wrong
   * chain`, `skipped: host breaker open, … left`, `skipped: benched, … left`, `skipped: score
   * 22 < eligibility 30`, `paused: rate-limit cooldown, … left`, or `admitted` with the
   * reputation band that decides its turn (good ≥ 70 first, then fair ≥ 50, then poor ≥ 30).
   */
  /** The largest lag behind the reference tip the pool saw for this endpoint, in slots (null: no head seen). */
  readonly maxLagSlots: number | null;
  /** How long the pool kept it out of rotation for lagging, in ms. */
  readonly laggingMs: number;
  readonly state: string;
  /** The node's WebSocket side: `-` (none), `steady`, or `silent 15–50 %` (of the run; pings still answered). */
  readonly websocket: string;
  /** Slot subscriptions on it when the workload ended (null: no WebSocket). */
  readonly subscriptions: number | null;
  /** Slot subscriptions that rebound away from it, as their caller saw (`rebind` items). */
  readonly reboundAway: number | null;
  /** `gap` items for slots missed while a subscription was on it, and how many slots they name. */
  readonly gaps: number | null;
  readonly missedSlots: number | null;
}

export interface DemoReport {
  readonly seed: number;
  readonly durationMs: number;
  readonly calls: number;
  readonly succeeded: number;
  readonly successRate: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly sends: number;
  readonly ambiguousSends: number;
  readonly duplicateSends: number;
  readonly excludedForWrongChain: readonly string[];
  readonly failuresByCode: Readonly<Record<string, number>>;
  /** Hedged reads (a second attempt to another endpoint). */
  readonly hedges: number;
  /** The longest time in which no call completed, in ms: the demo never freezes while a node is slow. */
  readonly longestGapMs: number;
  readonly endpoints: readonly DemoEndpointRow[];
  /** The live slot subscriptions (`onSlot`) on the WebSocket nodes, as their caller saw them. */
  readonly subscriptions: DemoSubscriptionTotals;
}

const FAULTS: readonly (readonly [string, DemoFault])[] = [
  ['healthy', { type: 'healthy' }],
  ['rate-limited', { type: 'rate-limit', requestsPerSecond: 40, retryAfterSeconds: 1 }],
  ['resetting', { type: 'reset', ratio: 0.2 }],
  ['slow', { type: 'slow', delayMs: 1_600 }],
  ['wrong-chain', { type: 'wrong-chain' }],
  ['lagging', { type: 'lagging' }],
];
/** The `lagging` node falls this far behind from 25 % to 60 % of the run, then catches up. */
const LAG_SLOTS = 300;
const LAG_WINDOW = [0.25, 0.6] as const;
/** Nodes that also speak WebSocket; the `silent` one stops notifying from 15 % to 50 % of the run (pings still answered). */
const WEBSOCKET: Readonly<Record<string, 'steady' | 'silent'>> = { healthy: 'silent', 'rate-limited': 'steady' };
const SILENT_WINDOW = [0.15, 0.5] as const;
/** Live `onSlot` subscriptions the demo opens through its pool. */
const SLOT_SUBSCRIPTIONS = 4;

const ADDRESS = 'Vote111111111111111111111111111111111111111';

/** A wire transaction with one random 64-byte signature and a short message. */
function wireTransaction(random: Random): string {
  const bytes = new Uint8Array(1 + 64 + 40);
  bytes[0] = 1;
  for (let i = 1; i < bytes.length; i++) bytes[i] = Math.floor(random() * 256);
  return base64.encode(bytes);
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function subscriptionColumns(node: DemoNode, tally: DemoSubscriptionTally | undefined) {
  const mode = WEBSOCKET[node.name];
  if (node.wsUrl === undefined || mode === undefined) return { websocket: '-', subscriptions: null, reboundAway: null, gaps: null, missedSlots: null };
  const percent = (x: number) => Math.round(x * 100);
  return {
    websocket: mode === 'silent' ? `silent ${percent(SILENT_WINDOW[0])}–${percent(SILENT_WINDOW[1])} %` : 'steady',
    subscriptions: tally?.subscriptions ?? 0,
    reboundAway: tally?.reboundAway ?? 0,
    gaps: tally?.gaps ?? 0,
    missedSlots: tally?.missedSlots ?? 0,
  };
}

/**
 * The offline demo: six fake Solana nodes on loopback (healthy, rate-limiting with
 * Retry-After, resetting connections after processing, slow, wrong chain, and one that falls
 * 300 slots behind for a while and catches up) and a mixed workload of reads and sends
 * through one pool, whose chain guard keeps the wrong chain out and whose head tracking
 * keeps the lagging node out while it lags. Two nodes also speak WebSocket and carry live
 * `onSlot` subscriptions through the same pool; one goes silent for a while (pings still
 * answered): its subscriptions rebind to the other with a `gap` for the slots missed.
 */
export async function runDemo(options: DemoOptions): Promise<DemoReport> {
  const random = createSeededRandom(options.seed);
  const ledger: SendLedger = new Map();
  const nodes: DemoNode[] = [];
  try {
    for (const [name, fault] of FAULTS) nodes.push(await startDemoNode(name, fault, ledger, systemClock, WEBSOCKET[name] !== undefined));
    // Each fake node stands for a different provider (on loopback they would share one operator).
    const endpoints = nodes.map((node) => ({ id: node.name, url: node.url, ...(node.wsUrl === undefined ? {} : { wsUrl: node.wsUrl }), operator: node.name, requestTimeoutMs: 3_000, maxConcurrentRequests: 8 }));

    // The chain guard asks each endpoint its genesis hash before its first call and excludes the wrong chain.
    const pool = new HttpTransportPool({
      endpoints,
      chain: 'solana',
      expectedChain: { genesisHash: SOLANA_GENESIS_HASHES['mainnet-beta'] },
      random,
      retry: { maxRetries: 3, initialBackoffMs: 50, maxBackoffMs: 500 },
      // A short demo: probe a node out of rotation every second (default 10 s).
      health: { probeIntervalMs: 1_000 },
      // A slot stream silent for 2 × 400 ms (at least 500 ms) is dead even while pongs arrive (default 5 ×, ≥ 2 s).
      // The demo's slot subscriptions are identical: unshared, each is a node subscription of its own, spread over both nodes.
      subscriptions: { minSilenceMs: 500, silenceFactor: 2, share: false },
    });
    const laggingSince = new Map<string, number>();
    const laggingMs = new Map<string, number>();
    pool.on('head', (e) => {
      if (e.state === 'lagging') laggingSince.set(e.endpointId, e.atMs);
      else if (laggingSince.has(e.endpointId)) {
        laggingMs.set(e.endpointId, (laggingMs.get(e.endpointId) ?? 0) + e.atMs - laggingSince.get(e.endpointId)!);
        laggingSince.delete(e.endpointId);
      }
    });
    const maxLag = new Map<string, number>();
    const sampleLag = () => {
      for (const endpoint of pool.snapshot().endpoints) {
        if (endpoint.head?.lag === undefined) continue;
        maxLag.set(endpoint.endpointId, Math.max(maxLag.get(endpoint.endpointId) ?? 0, Number(endpoint.head.lag)));
      }
    };
    const laggingNode = nodes.find((node) => node.fault.type === 'lagging');
    const cooldowns = new Map<string, number>();
    pool.on('cooldown', (e) => {
      if (e.phase === 'start') cooldowns.set(e.endpointId, (cooldowns.get(e.endpointId) ?? 0) + 1);
    });
    const hedgedAway = new Map<string, number>();
    pool.on('hedge', (e) => {
      if (e.phase === 'started') hedgedAway.set(e.endpointId, (hedgedAway.get(e.endpointId) ?? 0) + 1);
    });
    await options.onPool?.(pool);
    const sol = createSolanaClient(pool);
    // Opened (confirmed by a node) before the workload starts, read as a caller would until it ends.
    const slots = await watchSlots(sol, nodes.some((node) => node.wsUrl !== undefined) ? SLOT_SUBSCRIPTIONS : 0, options.signal);
    const silentNode = nodes.find((node) => WEBSOCKET[node.name] === 'silent');
    const latencies: number[] = [];
    const failuresByCode: Record<string, number> = {};
    let calls = 0;
    let succeeded = 0;
    let sends = 0;
    let ambiguousSends = 0;
    const started = systemClock.now();
    const deadline = started + options.durationMs;
    let lastCompletion = started;
    let longestGapMs = 0;

    const worker = async () => {
      while (systemClock.now() < deadline && options.signal?.aborted !== true) {
        const isSend = random() < 0.05;
        const t0 = systemClock.now();
        calls++;
        try {
          if (isSend) {
            sends++;
            await sol.sendTransaction(wireTransaction(random), { skipPreflight: true });
          } else if (random() < 0.5) {
            await sol.getBalance(ADDRESS);
          } else {
            await pool.request('getSlot', []);
          }
          succeeded++;
          latencies.push(systemClock.now() - t0);
        } catch (error) {
          const code = isTransportError(error) ? error.code : 'UNEXPECTED';
          failuresByCode[code] = (failuresByCode[code] ?? 0) + 1;
          if (code === 'AMBIGUOUS_DISPATCH') ambiguousSends++;
        }
        const now = systemClock.now();
        // Only while the workload runs: after the deadline the last calls in flight just drain.
        if (now < deadline) longestGapMs = Math.max(longestGapMs, now - lastCompletion);
        lastCompletion = now;
      }
    };
    const report = (elapsedMs: number, lagSlots: bigint | undefined) =>
      options.progress?.({ elapsedMs, calls, succeeded, failed: calls - succeeded, sends, ambiguousSends, lagSlots: lagSlots === undefined ? undefined : Number(lagSlots) });
    const ticker = setInterval(() => {
      const elapsedMs = systemClock.now() - started;
      if (laggingNode) laggingNode.lagSlots = elapsedMs >= LAG_WINDOW[0] * options.durationMs && elapsedMs < LAG_WINDOW[1] * options.durationMs ? LAG_SLOTS : 0;
      silentNode?.ws?.setSilent(elapsedMs >= SILENT_WINDOW[0] * options.durationMs && elapsedMs < SILENT_WINDOW[1] * options.durationMs);
      sampleLag();
      const lag = laggingNode ? pool.snapshot().endpoints.find((e) => e.endpointId === laggingNode.name)?.head?.lag : undefined;
      report(elapsedMs, lag);
    }, 100);
    options.onStart?.();
    try {
      await Promise.all(Array.from({ length: options.concurrency }, worker));
    } finally {
      clearInterval(ticker);
    }

    sampleLag();
    const snapshot = pool.snapshot();
    const subscriptions = await slots.finish();
    await pool.close();
    for (const [endpointId, since] of laggingSince) laggingMs.set(endpointId, (laggingMs.get(endpointId) ?? 0) + systemClock.now() - since);
    const wrongChain = snapshot.endpoints.filter((e) => e.chain === 'wrong-chain').map((e) => e.endpointId);
    const totalReceived = nodes.reduce((sum, node) => sum + node.received, 0);
    const rows: DemoEndpointRow[] = nodes.map((node) => {
      const roles = snapshot.roles.filter((r) => r.endpointId === node.name);
      const endpoint = snapshot.endpoints.find((e) => e.endpointId === node.name);
      const reputation = endpoint?.reputation;
      return {
        endpoint: node.name,
        fault: node.fault.type,
        requests: node.received,
        successes: roles.reduce((sum, r) => sum + r.successes, 0),
        rateLimited: node.rateLimited,
        cooldowns: cooldowns.get(node.name) ?? 0,
        score: reputation ? Math.round(reputation.score) : null,
        share: totalReceived === 0 ? 0 : node.received / totalReceived,
        hedgedAway: hedgedAway.get(node.name) ?? 0,
        maxLagSlots: maxLag.get(node.name) ?? null,
        laggingMs: Math.round(laggingMs.get(node.name) ?? 0),
        state: endpoint === undefined ? 'unknown' : admissionStateOf(endpoint, roles.find((r) => r.kind === 'read')),
        ...subscriptionColumns(node, slots.tally(node.name)),
      };
    });
    latencies.sort((a, b) => a - b);
    return {
      seed: options.seed,
      durationMs: options.durationMs,
      calls,
      succeeded,
      successRate: calls === 0 ? 0 : succeeded / calls,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      sends,
      ambiguousSends,
      duplicateSends: [...ledger.values()].filter((count) => count > 1).length,
      excludedForWrongChain: wrongChain,
      failuresByCode,
      hedges: [...hedgedAway.values()].reduce((sum, n) => sum + n, 0),
      longestGapMs: Math.round(longestGapMs),
      endpoints: rows,
      subscriptions,
    };
  } finally {
    await Promise.all(nodes.map((node) => node.close()));
  }
}
