/** Endpoint health between calls (`health`): heads from answers, lag verdicts that bench lagging endpoints, probes,
 * chain re-checks, archival routing. The decisions live in `src/health/`; this wires them to roles, reputation, events. */
import type { Exclusion } from '../admission/waiting-for.js';
import type { RoleState } from '../admission/role-state.js';
import type { Clock, Random } from '../clock.js';
import type { NormalizedEndpoint } from '../config/normalize.js';
import type { ClassifiedFailure, ClassifiedOutcome } from '../http/outcome.js';
import { ArchivalBook, type ArchivalKnowledge } from '../health/archival-book.js';
import { backendsOf } from '../health/backends.js';
import { resolveHealth, type HealthSettings, type HeadQuantity, type ResolvedHealth } from '../health/config.js';
import { HeadBook, type LagChange } from '../health/head-book.js';
import { headOfAnswer, isHeadValue, provenBlockOf, type RawHead } from '../health/head-of.js';
import { historicalReadOf, isPrunedAnswer, mayReadHistory, type HistoricalRead } from '../health/historical.js';
import { freshestOf } from '../health/lag.js';
import { ProbeLoop } from '../health/probe-loop.js';
import { believeRemoteHead } from '../health/remote-head.js';
import { readNodeUnhealthy } from '../jsonrpc/heuristics.js';
import type { CandidateFilter } from '../admission/admission-model.js';
import type { ChainGuard } from './chain-guard.js';
import type { PoolEvents } from '../api/events.js';
import type { PoolHealth } from './pool-health.js';
import { createProbeHost, type ProbeParts } from './endpoint-probes.js';
import { MAX_TIP_AGE_MS, type EndpointHealthHost, type EndpointHealthState, type EndpointHeadView, type HeadSink, type Probe } from './endpoint-health-types.js';

export type { EndpointHealthHost, EndpointHealthState, EndpointHeadView, HeadSink } from './endpoint-health-types.js';

export class EndpointHealth implements CandidateFilter {
  readonly settings: ResolvedHealth;
  readonly #inner: PoolHealth;
  readonly #endpoints: readonly NormalizedEndpoint[];
  readonly #rolesOf: RoleState[][];
  readonly #events: PoolEvents;
  readonly #clock: Clock;
  readonly #heads: HeadBook;
  readonly #archival: ArchivalBook;
  readonly #chainGuard: ChainGuard | undefined;
  readonly #host: EndpointHealthHost;
  readonly #loop: ProbeLoop | undefined;
  readonly #probes: Probe[];
  /** The quantity this pool's chain counts (undefined for `generic`): a remote head of the other one is not believed. */
  readonly #chainQuantity: HeadQuantity | undefined;
  /** When the last head adopted from the fleet was observed, per endpoint (-Infinity: never). */
  readonly #remoteAtMs: number[];
  /** Per endpoint: its last attempt failed to connect or timed out, and no answer came since (its head says nothing now). */
  readonly #unreached: boolean[] = [];
  #headSink: HeadSink | undefined;
  /** Heads older than this take no part in the tip (and, without probes, end a lag verdict). */
  readonly #staleAfterMs: number;
  readonly #lagOf = (role: RoleState) => (this.#heads.isLagging(role.endpoint.index) ? this.#heads.lagOf(role.endpoint.index) : 0);

  constructor(
    option: false | HealthSettings | undefined,
    chain: 'solana' | 'evm' | 'generic' | undefined,
    endpoints: readonly NormalizedEndpoint[],
    roles: readonly RoleState[],
    inner: PoolHealth,
    chainGuard: ChainGuard | undefined,
    events: PoolEvents,
    clock: Clock,
    random: Random,
    host: EndpointHealthHost,
  ) {
    this.settings = resolveHealth(option);
    this.#inner = inner;
    this.#endpoints = endpoints;
    this.#events = events;
    this.#clock = clock;
    this.#chainGuard = chainGuard;
    this.#host = host;
    this.#rolesOf = endpoints.map(() => []);
    for (const role of roles) this.#rolesOf[role.endpoint.index]!.push(role);
    const staleAfterMs = Math.max(60_000, 3 * this.settings.probeIntervalMs);
    this.#staleAfterMs = staleAfterMs;
    this.#heads = new HeadBook(endpoints.length, { allowance: this.settings.allowance, staleAfterMs, maxTipAgeMs: MAX_TIP_AGE_MS });
    this.#archival = new ArchivalBook(endpoints.map((endpoint) => endpoint.archival));
    const quantity: HeadQuantity = chain === 'solana' ? 'slot' : 'block';
    this.#probes = endpoints.map(() => ({ quantity }));
    this.#chainQuantity = chain === 'solana' ? 'slot' : chain === 'evm' ? 'block' : undefined;
    this.#remoteAtMs = endpoints.map(() => Number.NEGATIVE_INFINITY);
    this.#loop = this.settings.active ? new ProbeLoop(clock, random, this.settings.probeIntervalMs, backendsOf(endpoints), createProbeHost(this.#probeParts())) : undefined;
    if (this.settings.probeAll) this.#loop?.poke();
    // A verified endpoint is due a re-check later; a failed check is retried without waiting for a call.
    if (this.#loop !== undefined && chainGuard !== undefined) {
      const loop = this.#loop;
      events.on('chain', (event) => {
        if (event.status !== 'wrong-chain') loop.poke();
      });
    }
  }

  // ——— CandidateFilter: reputation and the host breaker, plus lag ———

  isExcluded(role: RoleState, nowMs: number): boolean {
    return this.#inner.isExcluded(role, nowMs) || (this.#heads.anyLagging && this.#lagExcludedUntil(role.endpoint.index, nowMs) > nowMs);
  }

  excludedUntil(role: RoleState, nowMs: number): number {
    const lagUntil = this.#heads.anyLagging ? this.#lagExcludedUntil(role.endpoint.index, nowMs) : 0;
    return lagUntil > nowMs ? lagUntil : this.#inner.excludedUntil(role, nowMs);
  }

  /** Why an excluded role is out (reputation and the breaker first, then lag), for a timed-out call's `waitingFor`. */
  exclusionOf(role: RoleState, nowMs: number): Exclusion | undefined {
    const inner = this.#inner.exclusionOf(role, nowMs);
    if (inner !== undefined) return inner;
    const lagUntil = this.#heads.anyLagging ? this.#lagExcludedUntil(role.endpoint.index, nowMs) : 0;
    return lagUntil > nowMs ? { reason: 'lagging', untilMs: lagUntil } : undefined;
  }

  /** Until when lag keeps an endpoint out (0: it does not). With probes, until a head says it is back (its probe's answer wakes the waiters).
   * Without probes (`health: false`) nothing else would, so the verdict lapses with its head (`staleAfterMs`): its next answer judges it again. */
  #lagExcludedUntil(index: number, nowMs: number): number {
    if (!this.#heads.isLagging(index)) return 0;
    if (this.settings.active) return Number.POSITIVE_INFINITY;
    const until = this.#heads.record(index)!.observedAtMs + this.#staleAfterMs;
    return until > nowMs ? until : 0;
  }

  /** Every candidate is excluded. Those only lagging (reputation has nothing against them) come first, the freshest of them; else reputation's guard (best score), freshest first. */
  collapseGuard(roles: readonly RoleState[], nowMs: number): readonly RoleState[] {
    if (!this.#heads.anyLagging) return this.#inner.collapseGuard(roles, nowMs);
    const onlyLagging = roles.filter((role) => !this.#inner.isExcluded(role, nowMs));
    return freshestOf(onlyLagging.length > 0 ? onlyLagging : this.#inner.collapseGuard(roles, nowMs), this.#lagOf);
  }

  settle(role: RoleState, nowMs: number): void {
    this.#inner.settle(role, nowMs);
  }

  refreshDue(nowMs: number): number {
    return this.#inner.refreshDue(nowMs);
  }

  // ——— What calls teach ———

  /** The reference tip of `quantity` (undefined before any head): how deep a block is settled. */
  tipOf(quantity: HeadQuantity): bigint | undefined {
    return this.#heads.tip(quantity)?.value;
  }

  /** The historical class of a read (routing and learning), or undefined. */
  historicalOf(method: string, params: readonly unknown[]): HistoricalRead | undefined {
    if (!mayReadHistory(method)) return undefined;
    return historicalReadOf(method, params, { block: this.tipOf('block'), slot: this.tipOf('slot') }, this.settings.historicalDepth);
  }

  /** Endpoints a historical read must not go to (known not to keep that history), or undefined when none is known — or when that would leave no endpoint of `kind`. */
  avoidFor(read: HistoricalRead, roles: readonly RoleState[]): ReadonlySet<string> | undefined {
    const now = this.#clock.now();
    let avoid: Set<string> | undefined;
    let left = 0;
    for (const role of roles) {
      if (this.#archival.knowledge(role.endpoint.index, read.class, now) === false) (avoid ??= new Set()).add(role.endpointId);
      else if (!role.disabled) left++;
    }
    return left > 0 ? avoid : undefined;
  }

  /** Every answer of a call's attempt: heads (cheap: most answers carry none), archival lessons, node-unhealthy lag. */
  onAnswer(role: RoleState, method: string, params: readonly unknown[], historical: HistoricalRead | undefined, outcome: ClassifiedOutcome): void {
    const index = role.endpoint.index;
    this.#unreached[index] = !outcome.ok && (outcome.cause === 'connection' || outcome.cause === 'timeout');
    if (outcome.ok) {
      const head = headOfAnswer(method, params, outcome.result) ?? this.#atLeast(index, method, outcome.result);
      if (head !== undefined) this.#observe(index, head.quantity, head.raw, this.#clock.now());
      if (historical?.provesArchival === true) this.#archival.learn(index, historical.class, true, this.#clock.now());
      return;
    }
    if (historical !== undefined && outcome.cause === 'capability' && isPrunedAnswer(historical, outcome.rpcCode, outcome.rpcMessage)) {
      this.#archival.learn(index, historical.class, false, this.#clock.now());
      return;
    }
    if (outcome.rpcCode === -32005) this.#observeUnhealthy(index, outcome);
  }

  /** After a failure was recorded: an endpoint that just left rotation is one for the bench loop. */
  afterFailure(role: RoleState): void {
    if (this.#loop !== undefined && (this.#inner.isExcluded(role, this.#clock.now()) || role.band > 0)) this.#loop.poke();
  }

  // ——— Fleet mode: heads observed by other processes ———

  /** Local head observations also go to `sink` (fleet mode; it rate-limits them). */
  shareHeadsWith(sink: HeadSink): void {
    this.#headSink = sink;
  }

  /**
   * A head another process observed on endpoint `index`, `ageMs` ago (store clock), taken
   * into the head book as an observation of that endpoint: it may start or end a lag verdict
   * like a local one. Not believed (false) when it is of the other quantity, older than
   * what this process already knows of the endpoint, or further ahead of the tip than the
   * chain can have moved (the tip's own plausibility rule). Returns true when it changed a
   * verdict.
   */
  adoptHead(index: number, quantity: HeadQuantity, value: bigint, ageMs: number): boolean {
    const observedAtMs = this.#clock.now() - Math.max(0, ageMs);
    if (!believeRemoteHead({ quantity, value, observedAtMs }, this.#heads.record(index), this.#chainQuantity, this.#heads.tip(quantity))) return false;
    this.#remoteAtMs[index] = observedAtMs;
    const changes = this.#heads.observe(index, quantity, value, observedAtMs);
    this.#apply(changes);
    return changes.length > 0;
  }

  // ——— Snapshot ———

  headOf(index: number, nowMs: number): EndpointHeadView | undefined {
    const record = this.#heads.record(index);
    return record && { value: record.value, lag: record.lag, observedAgoMs: Math.max(0, nowMs - record.observedAtMs) };
  }

  stateOf(index: number, nowMs: number): EndpointHealthState {
    if (this.#heads.isLagging(index)) return 'lagging';
    const roles = this.#rolesOf[index]!;
    if (roles.length > 0 && roles.every((role) => role.disabled || role.chainPending || this.#inner.isExcluded(role, nowMs))) return 'out-of-rotation';
    return this.#unreached[index] === true || this.#heads.record(index) === undefined || this.#heads.isAged(index) ? 'unknown' : 'fresh';
  }

  archivalOf(index: number, nowMs: number): ArchivalKnowledge {
    return this.#archival.summary(index, nowMs);
  }

  close(): void {
    this.#loop?.close();
  }

  // ——— Internals ———

  /** A receipt or block the node just served proves it has that block: a known head below it is raised to it (never set from nothing: an old receipt says nothing of the head). */
  #atLeast(index: number, method: string, result: unknown): RawHead | undefined {
    const raw = typeof result === 'object' && result !== null ? provenBlockOf(method, result) : undefined;
    const known = raw === undefined ? undefined : this.#heads.record(index);
    return known !== undefined && known.quantity === 'block' && BigInt(raw!) > known.value ? { quantity: 'block', raw: raw! } : undefined;
  }

  #observeUnhealthy(index: number, failure: ClassifiedFailure): void {
    const unhealthy = readNodeUnhealthy({ code: -32005, message: failure.rpcMessage ?? '', data: failure.rpcData });
    if (unhealthy?.numSlotsBehind == null) return;
    const now = this.#clock.now();
    const changes = this.#heads.observeBehind(index, unhealthy.numSlotsBehind, now);
    this.#apply(changes);
    const record = this.#heads.record(index);
    if (record?.observedAtMs === now) this.#headSink?.(index, record.quantity, record.value, now, changes.some((change) => change.index === index));
  }

  /** A head this process observed: into the head book, and to the sink (the fleet). */
  #observe(index: number, quantity: HeadQuantity, raw: number | bigint | string, nowMs: number): void {
    this.#unreached[index] = false;
    const changes = this.#heads.observe(index, quantity, raw, nowMs);
    this.#apply(changes);
    if (this.#headSink !== undefined && isHeadValue(raw)) this.#headSink(index, quantity, raw, nowMs, changes.length > 0 && changes.some((change) => change.index === index));
    // Another endpoint's verdict this head changed (judged when the first tip was set): the fleet hears of it too.
    for (const { index: other, record } of changes) if (other !== index) this.#headSink?.(other, record.quantity, record.value, nowMs, true);
  }

  #apply(changes: readonly LagChange[]): void {
    for (const change of changes) this.#report(change);
    if (this.#heads.takeNewlyAged()) this.#loop?.poke();
  }

  #report(change: LagChange): void {
    const endpointId = this.#endpoints[change.index]!.id;
    const { record } = change;
    this.#events.emit('head', {
      atMs: record.observedAtMs,
      endpointId,
      state: change.lagging ? 'lagging' : 'fresh',
      quantity: record.quantity,
      head: record.value,
      tip: change.tip,
      lag: record.lag ?? 0n,
      syncAllowance: change.allowance,
    });
    if (change.lagging) this.#loop?.poke();
    else this.#host.wake();
  }

  /** What the probes read and change (`endpoint-probes.ts`). */
  #probeParts(): ProbeParts {
    return {
      settings: this.settings,
      endpoints: this.#endpoints,
      rolesOf: this.#rolesOf,
      heads: this.#heads,
      inner: this.#inner,
      probes: this.#probes,
      remoteAtMs: this.#remoteAtMs,
      events: this.#events,
      clock: this.#clock,
      host: this.#host,
      chainGuard: this.#chainGuard,
      observe: (index, quantity, raw, nowMs) => this.#observe(index, quantity, raw, nowMs),
      observeUnhealthy: (index, failure) => this.#observeUnhealthy(index, failure),
    };
  }
}
