/**
 * One round of a call: its attempt, and — for an idempotent read that is late — a hedge to
 * another endpoint under the shared retry budget (README "Hedged reads"). The first definitive answer
 * wins and the other attempt is cancelled at once, no-fault. A send, an unknown method or a
 * filter poll is never hedged.
 */
import type { QueuedTimer } from '../clock.js';
import { HEDGE_DEFAULTS, hedgeDelayMs, LatencyQuantile, RetryBudget, type HedgeSettings } from '../balance/hedge-policy.js';
import type { RequestKind } from '../retry/causes.js';
import type { PoolInternals } from './internals.js';
import type { HttpRequestPermit } from './permit.js';
import { runAttempt, type AttemptResult, type CallContext, type LostAttempt, type RaceEntry } from './run-attempt.js';

/** Hedging state of one request kind: its delay quantile, its budget and its counters. */
export class KindHedging {
  readonly quantile: LatencyQuantile;
  readonly budget: RetryBudget;
  started = 0;
  won = 0;
  lost = 0;
  /** Whether another endpoint could ever take a hedge (more than one role of the kind). */
  readonly hasPeers: boolean;
  /** Late calls that found no answer of the kind to set their delay by: they look again at the first one. */
  readonly #waiting = new Set<HedgeWatch>();

  constructor(settings: HedgeSettings, nowMs: number, roles: number) {
    this.hasPeers = roles > 1;
    this.quantile = new LatencyQuantile(settings.quantile ?? 0.95);
    this.budget = new RetryBudget(settings.budgetRatio ?? 0.1, nowMs);
  }

  /** A good answer of this kind took `latencyMs`. */
  observe(latencyMs: number): void {
    this.quantile.observe(latencyMs);
    if (this.#waiting.size === 0) return;
    // A fresh pool: the first answers set the delay, so the calls waiting for one look again
    // now (not at `maxDelayMs`): a call held by a stalled node is hedged soon after its peers answered.
    const waiting = [...this.#waiting];
    this.#waiting.clear();
    for (const watch of waiting) watch.lookAgain();
  }

  /** `watch` found no answer to set its delay by. */
  waitForAnswer(watch: HedgeWatch): void {
    this.#waiting.add(watch);
  }

  /** `watch`'s call no longer needs a hedge (its attempt ended). */
  stopWaiting(watch: HedgeWatch): void {
    this.#waiting.delete(watch);
  }
}

/** The pool's hedging: settings and per-kind state. */
export class Hedging {
  readonly settings: HedgeSettings;
  readonly #kinds = new Map<RequestKind, KindHedging>();

  /** `roles`: how many roles serve each kind. */
  constructor(settings: HedgeSettings, roles: ReadonlyMap<RequestKind, number>, nowMs: number) {
    this.settings = settings;
    for (const [kind, count] of roles) this.#kinds.set(kind, new KindHedging(settings, nowMs, count));
  }

  of(kind: RequestKind): KindHedging | undefined {
    return this.#kinds.get(kind);
  }

  get kinds(): ReadonlyMap<RequestKind, KindHedging> {
    return this.#kinds;
  }
}

export interface RoundResult {
  readonly outcome: AttemptResult;
  /** Endpoints whose attempt in this round failed (the retry prefers others). */
  readonly failedEndpointIds: readonly string[];
}

/** Failures that end the call whatever the other attempt would say: the node's answer, our request, the caller's abort. */
const FINAL = new Set(['rpc-application', 'request', 'aborted']);

/**
 * Waits for a hedge's moment on the pool's hedge timer queue (no clock timer per call): at
 * the delay it starts the hedge when the first attempt is still out, the budget allows and
 * another endpoint can take it now. A hedge that answers first cancels the first attempt.
 */
class HedgeWatch implements QueuedTimer {
  dueMs = 0;
  primaryDone = false;
  hedge: Promise<AttemptResult | LostAttempt> | undefined;
  hedgeEntry: RaceEntry | undefined;
  hedgeEndpointId: string | undefined;
  delayMs: number;

  constructor(
    readonly pool: PoolInternals,
    readonly hedging: KindHedging,
    readonly settings: HedgeSettings,
    readonly permit: HttpRequestPermit,
    readonly call: CallContext,
    readonly attempt: number,
    readonly signal: AbortSignal | undefined,
    readonly primary: RaceEntry,
    readonly startedAt: number,
    firstLookMs: number,
  ) {
    this.delayMs = firstLookMs;
  }

  fire(): void {
    const { pool, hedging, permit } = this;
    if (this.primaryDone) return;
    // 'auto' follows the answers seen meanwhile: wait on if the delay is longer now.
    this.delayMs = hedgeDelayMs(this.settings, hedging.quantile);
    const now = pool.clock.now();
    const dueAt = this.startedAt + this.delayMs;
    if (now < dueAt) {
      // No answer seen yet: the delay is `maxDelayMs` only until the first one arrives.
      if (typeof this.settings.delayMs !== 'number' && hedging.quantile.estimateMs === undefined) hedging.waitForAnswer(this);
      if (dueAt < permit.deadlineMs) pool.hedgeTimers.add(this, dueAt - now);
      return;
    }
    if (!hedging.budget.tryHedge()) return;
    const hedgePermit = pool.tryHedgePermit(this.call.kind, permit, this.signal);
    if (hedgePermit === undefined) {
      hedging.budget.refund();
      return;
    }
    hedging.started++;
    this.hedgeEndpointId = hedgePermit.endpointId;
    this.emit('started');
    const entry: RaceEntry = { control: undefined, lost: false };
    this.hedgeEntry = entry;
    this.hedge = runAttempt(pool, hedgePermit, this.call, this.attempt, this.signal, entry).then((outcome) => {
      // The hedge answered first: the first attempt is cancelled at once, no-fault.
      if (!this.primaryDone && !('lost' in outcome) && (outcome.ok || FINAL.has(outcome.cause))) {
        this.primary.lost = true;
        this.primary.control?.abortByCaller();
      }
      return outcome;
    });
  }

  /**
   * An answer of the kind arrived: the delay may be shorter now. Looks again when it is due,
   * on the timer queue (not inside the answering attempt's bookkeeping, before its release).
   */
  lookAgain(): void {
    if (this.primaryDone || this.hedge !== undefined) return;
    const dueAt = this.startedAt + hedgeDelayMs(this.settings, this.hedging.quantile);
    if (dueAt < this.permit.deadlineMs) this.pool.hedgeTimers.add(this, dueAt - this.pool.clock.now());
  }

  /** The first attempt finished first: the hedge (if any) is cancelled. */
  cancelHedge(): void {
    if (this.hedgeEntry === undefined) return;
    this.hedgeEntry.lost = true;
    this.hedgeEntry.control?.abortByCaller();
  }

  emit(phase: 'started' | 'won' | 'lost'): void {
    const { pool, call } = this;
    if (!pool.events.has('hedge')) return;
    pool.events.emit('hedge', {
      atMs: pool.clock.now(),
      kind: call.kind,
      method: call.method,
      endpointId: this.permit.endpointId,
      hedgeEndpointId: this.hedgeEndpointId!,
      phase,
      delayMs: this.delayMs,
    });
  }
}

const single = (outcome: AttemptResult): RoundResult => ({ outcome, failedEndpointIds: outcome.ok ? [] : [outcome.endpointId] });

/** Runs the attempt on `permit` of a hedgeable call (an idempotent, unpinned read of a kind with peers), hedged when it is late. */
export async function attemptRound(
  pool: PoolInternals,
  permit: HttpRequestPermit,
  call: CallContext,
  attempt: number,
  signal: AbortSignal | undefined,
): Promise<RoundResult> {
  const hedging = pool.hedging!.of(call.kind)!;
  const settings = pool.hedging!.settings;
  // Before enough answers were seen, look again at the earliest possible delay: the first
  // calls of a pool must not wait `maxDelayMs` on a stalled node while its peers answer.
  const firstLookMs =
    hedging.quantile.estimateMs === undefined && typeof settings.delayMs !== 'number'
      ? (settings.minDelayMs ?? HEDGE_DEFAULTS.minDelayMs)
      : hedgeDelayMs(settings, hedging.quantile);
  const now = pool.clock.now();
  if (now + firstLookMs >= permit.deadlineMs) return single((await runAttempt(pool, permit, call, attempt, signal)) as AttemptResult);

  const primaryEntry: RaceEntry = { control: undefined, lost: false };
  const watch = new HedgeWatch(pool, hedging, settings, permit, call, attempt, signal, primaryEntry, now, firstLookMs);
  pool.hedgeTimers.add(watch, firstLookMs);
  const primary = await runAttempt(pool, permit, call, attempt, signal, primaryEntry);
  watch.primaryDone = true;
  pool.hedgeTimers.remove(watch);
  hedging.stopWaiting(watch);
  if (watch.hedge === undefined) return single(primary as AttemptResult);
  if (!('lost' in primary) && (primary.ok || FINAL.has(primary.cause))) {
    watch.cancelHedge();
    if (primary.ok) {
      hedging.lost++;
      watch.emit('lost');
    }
    return { outcome: primary, failedEndpointIds: [] };
  }
  // The hedge won (and cancelled the first attempt), or the first attempt failed and the hedge decides.
  const hedged = (await watch.hedge) as AttemptResult;
  if (hedged.ok) {
    hedging.won++;
    watch.emit('won');
  }
  const failedEndpointIds = [...('lost' in primary ? [] : [primary.endpointId]), ...(hedged.ok ? [] : [hedged.endpointId])];
  return { outcome: hedged, failedEndpointIds };
}
