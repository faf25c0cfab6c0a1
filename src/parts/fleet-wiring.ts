/**
 * Connects one pool to a fleet (`fleet` option): role buckets become leased buckets, and
 * rate-limit cooldowns, reputation benches, breaker opens, chain verdicts and head
 * observations are told to, and adopted from, the other processes; finalized reads are shared
 * (`shared-read-cache.ts`); credit plans spend one budget (`shared-spend.ts`); a role that
 * starts learning its rate joins the fleet's tuner (`lateLearner`). Every key handed to the
 * fleet is a SHA-256 of the endpoint's identity (URL, host) or of the chain and the request
 * (`fleet-keys.ts`), so no URL, host or key ever reaches Redis. Concurrency permits are not
 * shared: sockets are per process.
 */
import type { RoleState } from '../admission/role-state.js';
import type { Clock } from '../clock.js';
import type { NormalizedEndpoint } from '../config/normalize.js';
import { decodeHeadFact, HEAD_FACT_TTL_MS, headFactData, HeadTeller } from '../fleet/head-facts.js';
import { createSharedReputationStore, type BenchReason, type SharedReputationStore } from '../fleet/reputation-store.js';
import type { FleetBucketSpec, FleetFact, FleetMembership, FleetPoolWiring, FleetTopic, PoolFleet } from '../fleet/types.js';
import { isLearning } from '../admission/learned-bucket.js';
import type { HeadQuantity } from '../health/config.js';
import { headValue } from '../health/head-of.js';
import type { ReputationKey } from '../reputation/keys.js';
import type { RequestKind } from '../retry/causes.js';
import type { ChainGuard } from './chain-guard.js';
import type { HeadSink } from './endpoint-health.js';
import type { PoolEvents } from '../api/events.js';
import type { HealthFleetHooks, PoolHealth } from './pool-health.js';
import type { ReadCache } from './read-cache.js';
import { sharedReadCacheMiss, type SharedReadCacheParts } from './shared-read-cache.js';
import type { CacheMiss } from '../pipeline/cache.js';
import { keyOf, normalizedUrl } from './fleet-keys.js';
import { SharedPlans } from './shared-spend.js';
import type { LateLearner } from './rate-autopilot.js';

/** How long a chain verdict is remembered by the fleet: an endpoint's URL may be re-pointed at another node. */
export const CHAIN_VERDICT_TTL_MS = 600_000;
const MAX_BENCH_TTL_MS = 3_600_000;
/** A cooldown is told again only if it ends this much later than the one last told. */
const COOLDOWN_RETELL_MS = 100;
const BENCH_REASONS: ReadonlySet<string> = new Set<BenchReason>(['strikes', 'critical-rate', 'invalid-rate', 'score']);

export interface FleetWiringContext {
  readonly roles: readonly RoleState[];
  readonly endpoints: readonly NormalizedEndpoint[];
  readonly events: PoolEvents;
  readonly health: PoolHealth;
  /** Head observations: local ones go out through the sink, remote ones come in as observations. */
  readonly heads?: {
    shareHeadsWith(sink: HeadSink): void;
    adoptHead(index: number, quantity: HeadQuantity, value: bigint, ageMs: number): boolean;
  };
  readonly chainGuard: ChainGuard | undefined;
  /** `expectedChain`, described (chain verdicts are per expected chain). */
  readonly expectedChain: string;
  /** Admission must look again at calls of this kind (tokens arrived). */
  wake(kind: RequestKind): void;
}

/** The wiring of one pool into `fleet` (what `PoolFleet.wire` returns). */
export function wireFleet(fleet: PoolFleet, clock: Clock): FleetPoolWiring {
  return new FleetWiring(fleet, clock);
}

export class FleetWiring implements FleetPoolWiring {
  readonly fleetWiring = true as const;
  readonly #fleet: PoolFleet;
  readonly #clock: Clock;
  readonly #store: SharedReputationStore;
  #membership: FleetMembership | undefined;
  #context: FleetWiringContext | undefined;
  #plans: SharedPlans | undefined;
  readonly #roleKey = new Map<RoleState, string>();
  readonly #rolesOfKey = new Map<string, RoleState[]>();
  readonly #reputationOfKey = new Map<string, ReputationKey>();
  readonly #hostOfKey = new Map<string, string>();
  readonly #endpointOfChainKey = new Map<string, string>();
  /** Head fact key per endpoint index, and the endpoints (indices) each key names: one URL, one node. */
  readonly #headKeyOf: string[] = [];
  readonly #indicesOfHeadKey = new Map<string, number[]>();
  /** End of the cooldown last told per role key: a burst of 429s (64 calls in flight) is told once, not 64 times. */
  readonly #toldCooldownUntil = new Map<string, number>();
  #closed = false;

  constructor(fleet: PoolFleet, clock: Clock) {
    this.#fleet = fleet;
    this.#clock = clock;
    this.#store = createSharedReputationStore(
      () => clock.now(),
      (key, bench) => {
        // A score that never recovers by time alone (recoveryTimeoutMs 0) is told as one hour out.
        const ttlMs = Math.min(bench.untilMs - this.#clock.now(), MAX_BENCH_TTL_MS);
        if (ttlMs > 0) this.#share({ topic: 'bench', key: keyOf('reputation', key), ttlMs, data: { detector: bench.detector, level: bench.level, strikes: bench.strikes } });
      },
      (entry, nowMs) => this.#context?.health.ineligibleUntil(entry, nowMs),
    );
  }

  /** What reputation and the breaker need before the pool's health exists. */
  get healthHooks(): HealthFleetHooks {
    return {
      store: this.#store,
      onBreakerOpen: (host, durationMs, openCount) => this.#share({ topic: 'breaker', key: keyOf('host', host), ttlMs: durationMs, data: { openCount } }),
    };
  }

  /** Joins the fleet once the pool's parts exist: buckets are swapped for leased ones. */
  connect(context: FleetWiringContext): void {
    this.#context = context;
    const buckets = new Map<string, FleetBucketSpec>();
    const facts: { topic: FleetTopic; key: string }[] = [];
    for (const role of context.roles) {
      const key = keyOf('role', normalizedUrl(role.endpoint.url), role.settings.kind);
      this.#roleKey.set(role, key);
      const peers = this.#rolesOfKey.get(key);
      if (peers) peers.push(role);
      else {
        this.#rolesOfKey.set(key, [role]);
        facts.push({ topic: 'cooldown', key });
      }
      const { requestsPerSecond, burstCapacity, learnedRate } = role.settings;
      // A learned rate has one tuner per budget across the fleet (fleet/learned-lease.ts), starting where a process would.
      if (learnedRate !== undefined) buckets.set(key, { key, requestsPerSecond: learnedRate.startRps, burstCapacity: Math.max(1, learnedRate.startRps), learned: learnedRate });
      else if (requestsPerSecond !== undefined && burstCapacity !== undefined) buckets.set(key, { key, requestsPerSecond, burstCapacity });
    }
    for (const endpoint of context.endpoints) {
      const reputation = context.health.reputationKeyOf(endpoint.id);
      if (reputation !== undefined && !this.#reputationOfKey.has(keyOf('reputation', reputation))) {
        this.#reputationOfKey.set(keyOf('reputation', reputation), reputation);
        facts.push({ topic: 'bench', key: keyOf('reputation', reputation) });
      }
      const host = keyOf('host', endpoint.breakerKey);
      if (!this.#hostOfKey.has(host)) {
        this.#hostOfKey.set(host, endpoint.breakerKey);
        facts.push({ topic: 'breaker', key: host });
      }
      if (context.heads !== undefined) {
        const head = keyOf('head', normalizedUrl(endpoint.url));
        this.#headKeyOf[endpoint.index] = head;
        const indices = this.#indicesOfHeadKey.get(head);
        if (indices) indices.push(endpoint.index);
        else {
          this.#indicesOfHeadKey.set(head, [endpoint.index]);
          facts.push({ topic: 'head', key: head });
        }
      }
      if (context.chainGuard && endpoint.verifyChain) {
        const chain = keyOf('chain', normalizedUrl(endpoint.url), context.expectedChain);
        this.#endpointOfChainKey.set(chain, endpoint.id);
        facts.push({ topic: 'chain', key: chain });
      }
    }
    const plans = (this.#plans = new SharedPlans(context.roles, this.#clock));
    for (const spec of plans.buckets()) buckets.set(spec.key, spec);
    if (context.heads !== undefined) {
      const teller = new HeadTeller(context.endpoints.length);
      context.heads.shareHeadsWith((index, quantity, raw, nowMs, verdictChanged) => {
        if (!teller.due(index, raw, nowMs, verdictChanged)) return;
        this.#share({ topic: 'head', key: this.#headKeyOf[index]!, ttlMs: HEAD_FACT_TTL_MS, data: headFactData(quantity, headValue(raw)) });
      });
    }
    this.#membership = this.#fleet.join({
      clock: this.#clock,
      buckets: [...buckets.values()],
      facts,
      onFact: (fact) => this.#adopt(fact),
      onTokens: (key) => {
        const kinds = new Set((this.#rolesOfKey.get(key) ?? plans.rolesOf(key) ?? []).map((role) => role.settings.kind));
        for (const kind of kinds) context.wake(kind);
      },
      onStatus: (status) => {
        plans.statusChanged(status);
        context.events.emit('fleet', { atMs: this.#clock.now(), type: 'mode', ...status });
      },
    });
    plans.joined(this.#membership);
    for (const [key, roles] of this.#rolesOfKey) {
      if (!buckets.has(key)) continue;
      const bucket = this.#membership.bucket(key);
      for (const role of roles) {
        // The learned rate's listener (the autopilot's events, log lines, gauge) follows it into the fleet.
        if (isLearning(role.bucket) && isLearning(bucket)) bucket.listener ??= role.bucket.listener;
        role.bucket = bucket;
      }
    }
  }

  /**
   * A role with no configured rate started learning one (`rate-autopilot.ts`): it joins the
   * fleet's one tuner of its budget, which starts at the rate the fleet was answered at (this
   * process's × the members) unless another process started it already. Undefined: a fleet
   * that declares no bucket after the join (the role learns alone).
   */
  readonly lateLearner: LateLearner = (role, settings) => {
    const key = this.#roleKey.get(role);
    const membership = this.#membership;
    if (key === undefined || membership === undefined) return undefined;
    const startRps = Math.min(settings.maxRps, settings.startRps * membership.status().members);
    try {
      const bucket = membership.bucket(key, { key, requestsPerSecond: startRps, burstCapacity: Math.max(1, startRps), learned: { ...settings, startRps } });
      return isLearning(bucket) ? bucket : undefined;
    } catch {
      return undefined;
    }
  };

  /** The pool started (or lengthened) a rate-limit cooldown on `role`. */
  cooldownStarted(role: RoleState, cooldownMs: number): void {
    const key = this.#roleKey.get(role);
    if (key === undefined) return;
    const untilMs = this.#clock.now() + cooldownMs;
    // Told again only when it ends noticeably later than what the fleet already knows.
    if (untilMs <= (this.#toldCooldownUntil.get(key) ?? Number.NEGATIVE_INFINITY) + COOLDOWN_RETELL_MS) return;
    this.#toldCooldownUntil.set(key, untilMs);
    this.#share({ topic: 'cooldown', key, ttlMs: cooldownMs, data: {} });
  }

  /** The chain guard reached a verdict on `endpointId`. */
  chainVerdict(endpointId: string, status: 'verified' | 'wrong-chain'): void {
    for (const [key, id] of this.#endpointOfChainKey) {
      if (id === endpointId) this.#share({ topic: 'chain', key, ttlMs: CHAIN_VERDICT_TTL_MS, data: { status } });
    }
  }

  /** A read cache miss that asks the fleet's store first; undefined when the fleet shares no reads, or with `cache.fleet: false`. */
  readCacheMiss(cache: ReadCache, timeoutMsOf: SharedReadCacheParts['timeoutMsOf']): CacheMiss | undefined {
    const reads = this.#membership?.reads;
    const context = this.#context;
    if (reads === undefined || context === undefined || !(cache.settings.fleetTtlMs > 0)) return undefined;
    // Reads are shared per chain: the expected chain when set, else the pool's endpoints (the same configuration in every process).
    const chain = context.expectedChain !== '' ? context.expectedChain : context.endpoints.map((e) => normalizedUrl(e.url)).sort().join('\n');
    const storeKeyOf = (key: string) => keyOf('read', chain, key);
    return sharedReadCacheMiss({ cache, reads, clock: this.#clock, ttlMs: cache.settings.fleetTtlMs, storeKeyOf, timeoutMsOf, closed: () => this.#closed });
  }

  close(): void {
    this.#closed = true;
    this.#plans?.close();
    this.#membership?.leave();
  }

  #share(fact: FleetFact): void {
    this.#membership?.share(fact);
  }

  /** A fact from another process (or recalled): apply it to the roles it names. */
  #adopt(fact: FleetFact): void {
    const context = this.#context;
    if (!context || !(fact.ttlMs > 0)) return;
    const now = this.#clock.now();
    const untilMs = now + fact.ttlMs;
    let endpointIds: string[] = [];
    switch (fact.topic) {
      case 'cooldown': {
        for (const role of this.#rolesOfKey.get(fact.key) ?? []) {
          if (role.cooldownUntilMs >= untilMs) continue;
          const wasCooling = role.availability === 'rate-limited' && now < role.cooldownUntilMs;
          role.cooldownUntilMs = untilMs;
          role.availability = 'rate-limited';
          if (!wasCooling) context.events.emit('cooldown', { atMs: now, endpointId: role.endpointId, kind: role.settings.kind, phase: 'start', durationMs: fact.ttlMs });
          endpointIds.push(role.endpointId);
        }
        break;
      }
      case 'bench': {
        const reputation = this.#reputationOfKey.get(fact.key);
        const detector = fact.data['detector'];
        if (reputation === undefined || typeof detector !== 'string' || !BENCH_REASONS.has(detector)) return;
        const bench = { detector: detector as BenchReason, untilMs, level: Number(fact.data['level']) || 0, strikes: Number(fact.data['strikes']) || 0 };
        if (!this.#store.merge(reputation, bench, () => context.health.initialEntry(now)!)) return;
        context.health.invalidate();
        endpointIds = context.endpoints.filter((e) => context.health.reputationKeyOf(e.id) === reputation).map((e) => e.id);
        break;
      }
      case 'breaker': {
        const host = this.#hostOfKey.get(fact.key);
        if (host === undefined || !context.health.adoptBreakerOpen(host, untilMs, Number(fact.data['openCount']) || 1)) return;
        endpointIds = context.endpoints.filter((e) => e.breakerKey === host).map((e) => e.id);
        break;
      }
      case 'chain': {
        const endpointId = this.#endpointOfChainKey.get(fact.key);
        const status = fact.data['status'];
        if (endpointId === undefined || (status !== 'verified' && status !== 'wrong-chain')) return;
        if (!context.chainGuard?.adopt(endpointId, status)) return;
        endpointIds = [endpointId];
        break;
      }
      case 'head': {
        const indices = this.#indicesOfHeadKey.get(fact.key);
        const head = decodeHeadFact(fact.ttlMs, fact.data);
        if (indices === undefined || head === undefined || context.heads === undefined) return;
        // Every head of a busy endpoint travels: only one that changed a lag verdict is an event.
        for (const index of indices) if (context.heads.adoptHead(index, head.quantity, head.value, head.ageMs)) endpointIds.push(context.endpoints[index]!.id);
        break;
      }
    }
    if (endpointIds.length > 0) context.events.emit('fleet', { atMs: now, type: 'adopted', topic: fact.topic, endpointIds: [...new Set(endpointIds)], remainingMs: fact.ttlMs });
  }
}
