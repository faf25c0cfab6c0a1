/**
 * What the exporters export, declared once for Prometheus and OpenTelemetry: event counters,
 * snapshot gauges (read at scrape time), and the labels' value sets. Pure data and small
 * functions, no metrics library.
 *
 * The PATH gateway lesson: only a label's value set bounds its series. Every label here has
 * a value set fixed by configuration (endpoint ids, request kinds) or by this file (causes,
 * dispatch states, phases, error codes). Outcome taxonomy lives on counters; histograms keep
 * one topology label; per-endpoint questions are answered by gauges read from the snapshot.
 *
 * Adding a counter for a new event, or a gauge for a new snapshot field, is one entry in
 * {@link EVENT_COUNTERS} or {@link SNAPSHOT_GAUGES}.
 */
import type { PoolEventMap, PoolEventName } from '../api/events.js';
import type { PoolSnapshot } from '../pool/snapshot.js';
import { DISPATCH_STATES, FAILURE_CAUSES } from '../retry/causes.js';
import { TRANSPORT_ERROR_CODES } from '../errors/codes.js';
import { READ_RULES } from '../cache/read-rules.js';

/** The configuration's part of the label value sets. */
export interface MetricTopology {
  readonly endpoints: readonly string[];
  readonly kinds: readonly string[];
}

/** Every label the exporters use, with its value set. */
export const LABEL_VALUES = {
  endpoint: (t: MetricTopology): readonly string[] => t.endpoints,
  kind: (t: MetricTopology): readonly string[] => t.kinds,
  /** A successful attempt is `none`; a hedge race's cancelled loser is `hedge-lost`. */
  cause: (): readonly string[] => ['none', 'hedge-lost', ...FAILURE_CAUSES],
  dispatch: (): readonly string[] => DISPATCH_STATES,
  /** `ok`, a `TransportError` code, or `other` for anything else thrown. */
  outcome_code: (): readonly string[] => ['ok', ...TRANSPORT_ERROR_CODES, 'other'],
  phase: (): readonly string[] => ['started', 'won', 'lost'],
  status: (): readonly string[] => ['verified', 'wrong-chain', 'check-failed'],
  found: (): readonly string[] => ['true', 'false'],
  state: (): readonly string[] => ['available', 'degraded', 'rate-limited'],
  health: (): readonly string[] => ['fresh', 'lagging', 'out-of-rotation', 'unknown'],
  lag_state: (): readonly string[] => ['lagging', 'fresh'],
  probe_outcome: (): readonly string[] => ['ok', 'failed', 'skipped'],
  cache_outcome: (): readonly string[] => ['hit', 'miss', 'shared-hit', 'store', 'eviction', 'reorg-eviction', 'verify-mismatch'],
  /** The methods of the read cache's table (no other method is ever counted). */
  cache_method: (): readonly string[] => [...READ_RULES.keys()],
  cache_class: (): readonly string[] => ['finalized', 'unfinalized', 'realtime'],
  consensus_outcome: (): readonly string[] => ['call', 'agreed', 'disagreed', 'failed', 'tie-break', 'strike'],
} as const;

export type LabelName = keyof typeof LABEL_VALUES;

/** A counter fed by one pool event. `count` calls `inc` once per series to increment (label values in `labels` order). */
export interface EventCounter<E extends PoolEventName = PoolEventName> {
  readonly name: string;
  readonly help: string;
  readonly event: E;
  readonly labels: readonly LabelName[];
  count(event: PoolEventMap[E], inc: (...values: string[]) => void): void;
}

function counter<E extends PoolEventName>(definition: EventCounter<E>): EventCounter {
  return definition as unknown as EventCounter;
}

/** Counters fed by pool events. Their series are created (at 0) at registration: the set is the configuration's. */
export const EVENT_COUNTERS: readonly EventCounter[] = [
  counter({
    name: 'rate_limits_total',
    help: 'Rate-limit answers (HTTP 429, JSON-RPC rate-limit errors), per endpoint.',
    event: 'rate-limited',
    labels: ['endpoint'],
    count: (e, inc) => inc(e.endpointId),
  }),
  counter({
    name: 'cooldowns_total',
    help: 'Cooldowns started (a role paused after a rate limit or a provider delay), per endpoint.',
    event: 'cooldown',
    labels: ['endpoint'],
    count: (e, inc) => e.phase === 'start' && inc(e.endpointId),
  }),
  counter({
    name: 'breaker_opens_total',
    help: 'Host circuit breaker opens, per endpoint on the broken host.',
    event: 'breaker',
    labels: ['endpoint'],
    count: (e, inc) => e.state === 'open' && e.endpointIds.forEach((id) => inc(id)),
  }),
  counter({
    name: 'benches_total',
    help: 'Reputation benches (a detector cooled the endpoint down), per endpoint.',
    event: 'reputation',
    labels: ['endpoint'],
    count: (e, inc) => e.change === 'cooldown-start' && inc(e.endpointId),
  }),
  counter({
    name: 'hedges_total',
    help: 'Hedged reads per first-attempt endpoint: started, won by the hedge, lost by the hedge.',
    event: 'hedge',
    labels: ['endpoint', 'phase'],
    count: (e, inc) => inc(e.endpointId, e.phase),
  }),
  counter({
    name: 'chain_checks_total',
    help: 'expectedChain checks per endpoint and verdict.',
    event: 'chain',
    labels: ['endpoint', 'status'],
    count: (e, inc) => inc(e.endpointId, e.status),
  }),
  counter({
    name: 'lag_changes_total',
    help: 'An endpoint started lagging behind the chain tip (out of rotation) or came back within half the sync allowance.',
    event: 'head',
    labels: ['endpoint', 'lag_state'],
    count: (e, inc) => inc(e.endpointId, e.state),
  }),
  counter({
    name: 'probes_total',
    help: 'Health probes (the bench loop) per endpoint entry of the probed backend, by outcome (skipped: no token to spare).',
    event: 'probe',
    labels: ['endpoint', 'probe_outcome'],
    count: (e, inc) => e.endpointIds.forEach((id) => inc(id, e.outcome)),
  }),
  counter({
    name: 'reconciles_total',
    help: 'Ambiguous sends looked up (reconcileSends), by whether the transaction was found.',
    event: 'reconcile',
    labels: ['found'],
    count: (e, inc) => inc(String(e.found)),
  }),
];

/** A gauge read from the snapshot at scrape time. `collect` calls `set` once per series. */
export interface SnapshotGauge {
  readonly name: string;
  readonly help: string;
  readonly labels: readonly LabelName[];
  collect(snapshot: PoolSnapshot, set: (value: number, ...values: string[]) => void): void;
}

const seconds = (ms: number) => ms / 1000;

/** Gauges from `pool.snapshot()`. */
export const SNAPSHOT_GAUGES: readonly SnapshotGauge[] = [
  {
    name: 'read_cache_reads',
    help: 'Read cache lookups and drops since the pool started, by outcome (no series with cache: false).',
    labels: ['cache_outcome'],
    collect: ({ cache }, set) => {
      if (cache === undefined) return;
      set(cache.hits, 'hit');
      set(cache.misses, 'miss');
      set(cache.sharedHits, 'shared-hit');
      set(cache.evictions, 'eviction');
      set(cache.reorgEvictions, 'reorg-eviction');
      set(cache.verifyMismatches, 'verify-mismatch');
    },
  },
  {
    name: 'read_cache_stored',
    help: 'Answers the read cache kept since the pool started, by class.',
    labels: ['cache_class'],
    collect: ({ cache }, set) => cache && Object.entries(cache.stored).forEach(([readClass, count]) => set(count, readClass)),
  },
  {
    name: 'read_cache_method_reads',
    help: 'Read cache hits, misses, kept answers, evictions and reorg evictions since the pool started, per method and class (a miss under the class its read was asked as).',
    labels: ['cache_method', 'cache_class', 'cache_outcome'],
    collect: ({ cache }, set) =>
      cache?.methods.forEach((t) => {
        set(t.hits, t.method, t.class, 'hit');
        set(t.misses, t.method, t.class, 'miss');
        set(t.stored, t.method, t.class, 'store');
        set(t.evictions, t.method, t.class, 'eviction');
        set(t.reorgEvictions, t.method, t.class, 'reorg-eviction');
      }),
  },
  {
    name: 'read_cache_bytes',
    help: "Bytes the read cache holds (the kept answers' JSON text plus keys).",
    labels: [],
    collect: ({ cache }, set) => cache && set(cache.bytes),
  },
  {
    name: 'consensus_reads',
    help: 'Consensus reads since the pool started: calls, agreed at once, disagreed, failed, tie-breaks asked, outliers struck.',
    labels: ['consensus_outcome'],
    collect: ({ consensus }, set) => {
      if (consensus === undefined) return;
      set(consensus.calls, 'call');
      set(consensus.agreed, 'agreed');
      set(consensus.disagreed, 'disagreed');
      set(consensus.failed, 'failed');
      set(consensus.tieBreaks, 'tie-break');
      set(consensus.strikes, 'strike');
    },
  },
  {
    name: 'endpoint_score',
    help: 'Reputation score per endpoint (0-100; eligible at 30 by default).',
    labels: ['endpoint'],
    collect: (s, set) => s.endpoints.forEach((e) => e.reputation && set(e.reputation.score, e.endpointId)),
  },
  {
    name: 'endpoint_benched_seconds',
    help: 'Remaining reputation cooldown per endpoint, in seconds (0 = in rotation).',
    labels: ['endpoint'],
    collect: (s, set) => s.endpoints.forEach((e) => e.reputation && set(seconds(e.reputation.cooldownRemainingMs), e.endpointId)),
  },
  {
    name: 'endpoint_breaker_open_seconds',
    help: "Remaining open time of the endpoint's host breaker, in seconds (0 = closed).",
    labels: ['endpoint'],
    collect: (s, set) => s.endpoints.forEach((e) => set(seconds(e.breakerOpenRemainingMs), e.endpointId)),
  },
  {
    name: 'endpoint_in_flight',
    help: 'Requests in flight per endpoint, all kinds together.',
    labels: ['endpoint'],
    collect: (s, set) => s.endpoints.forEach((e) => set(e.inFlight, e.endpointId)),
  },
  {
    name: 'endpoint_excluded',
    help: '1 when the expectedChain check found the endpoint on another chain (excluded for good), else 0.',
    labels: ['endpoint'],
    collect: (s, set) => s.endpoints.forEach((e) => set(e.chain === 'wrong-chain' ? 1 : 0, e.endpointId)),
  },
  {
    name: 'endpoint_health',
    help: "Each endpoint's health as a state set (fresh, lagging, out-of-rotation, unknown): 1 for the current state, 0 for the others.",
    labels: ['endpoint', 'health'],
    collect: (s, set) => s.endpoints.forEach((e) => LABEL_VALUES.health().forEach((state) => set(e.health === state ? 1 : 0, e.endpointId, state))),
  },
  {
    name: 'endpoint_lag',
    help: 'How far the endpoint is behind the reference tip, in slots (Solana) or blocks (EVM); absent until its head is known.',
    labels: ['endpoint'],
    collect: (s, set) => s.endpoints.forEach((e) => e.head?.lag !== undefined && set(Number(e.head.lag), e.endpointId)),
  },
  {
    name: 'role_state',
    help: 'Availability of each role (endpoint x kind) as a state set: 1 for the current state, 0 for the others.',
    labels: ['endpoint', 'kind', 'state'],
    collect: (s, set) =>
      s.roles.forEach((r) => LABEL_VALUES.state().forEach((state) => set(r.availability === state ? 1 : 0, r.endpointId, r.kind, state))),
  },
  {
    name: 'role_tokens',
    help: 'Tokens in the bucket of each rate-limited role now (fractional).',
    labels: ['endpoint', 'kind'],
    collect: (s, set) => s.roles.forEach((r) => r.tokens !== undefined && set(r.tokens, r.endpointId, r.kind)),
  },
  {
    name: 'role_learned_requests_per_second',
    help: "Rate learned for each requestsPerSecond 'auto' role now, in requests per second.",
    labels: ['endpoint', 'kind'],
    collect: (s, set) => s.roles.forEach((r) => r.learnedRequestsPerSecond !== undefined && set(r.learnedRequestsPerSecond, r.endpointId, r.kind)),
  },
  {
    name: 'endpoint_learned_max_concurrent_requests',
    help: "Concurrency learned for each maxConcurrentRequests 'auto' endpoint now, in requests in flight.",
    labels: ['endpoint'],
    collect: (s, set) => s.endpoints.forEach((e) => e.learnedMaxConcurrentRequests !== undefined && set(e.learnedMaxConcurrentRequests, e.endpointId)),
  },
  {
    name: 'endpoint_credits_spent',
    help: "Credits each endpoint with a plan has sent this UTC month (its plan's monthly budget counts them).",
    labels: ['endpoint'],
    collect: (s, set) => s.endpoints.forEach((e) => e.credits !== undefined && set(e.credits.spentThisMonth, e.endpointId)),
  },
  {
    name: 'role_cooldown_seconds',
    help: 'Remaining rate-limit cooldown of each role, in seconds (0 = admitting).',
    labels: ['endpoint', 'kind'],
    collect: (s, set) => s.roles.forEach((r) => set(seconds(r.cooldownRemainingMs), r.endpointId, r.kind)),
  },
  {
    name: 'retry_budget_tokens',
    help: 'Tokens left in the retry budget that hedges and retries share, per kind.',
    labels: ['kind'],
    collect: (s, set) => s.kinds.forEach((k) => set(k.retryBudget, k.kind)),
  },
];

/** Every combination of the label values (for creating series at 0). */
export function labelCombinations(labels: readonly LabelName[], topology: MetricTopology): string[][] {
  let combos: string[][] = [[]];
  for (const label of labels) {
    const values = LABEL_VALUES[label](topology);
    combos = combos.flatMap((prefix) => values.map((value) => [...prefix, value]));
  }
  return combos;
}

/** Endpoint ids and kinds of a pool, from its snapshot. */
export function topologyOf(snapshot: PoolSnapshot): MetricTopology {
  return { endpoints: snapshot.endpoints.map((e) => e.endpointId), kinds: [...new Set(snapshot.roles.map((r) => r.kind))] };
}
