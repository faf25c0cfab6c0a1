/**
 * A learned rate in fleet mode (docs/fleet.md "Learned rates"): one tuner per budget. Every
 * member spends the fleet's shared bucket, whose rate the store takes from the tuner's hash
 * (`lua.ts` TAKE with the tuner's key), and reports what it saw once a demand window: tokens
 * taken, tokens refused, rate limits. The member holding the tuner's lease (one owner, renewed
 * by its reports, taken over when it stops reporting) adds every member's counts up and makes
 * the one decision the local learner makes (`admission/learned-rate.ts`), for the fleet as a
 * whole: so N processes lower the rate once per 429 storm, not N times, and raise it only while
 * the fleet's demand presses on it. While the store is out of reach, each member spends its
 * local share of the last learned rate (`LeasedBucket.goLocal`) and tunes nothing.
 */
import type { LearningBucket, LearnedRateListener } from '../admission/learned-bucket.js';
import {
  acceptedRpsOf,
  afterDemandWindow,
  afterRateLimit,
  DEMAND_WINDOW_MS,
  initialLearnedRate,
  INITIAL_STEP,
  type LearnedRateReason,
  type LearnedRateSettings,
  type LearnedRateState,
  type RateLimitHint,
} from '../admission/learned-rate.js';
import { setBackgroundTimer, type Clock, type Random, type TimerHandle } from '../clock.js';
import type { FleetBackend, SharedRate, TuneAnswer, TunerCounts } from './backend.js';
import { LeasedBucket, type LeaseSource } from './lease-bucket.js';
import type { FleetBucketSpec } from './types.js';

/** Where a learned bucket's reports go: undefined when the store did not answer (the fleet may be local). */
export interface TunerSource extends LeaseSource {
  /** `release`: this member leaves the tuner (and its lease, if it holds it). */
  tune(counts: TunerCounts, start: SharedRate, release: boolean): Promise<TuneAnswer | undefined>;
  publish(rate: SharedRate): Promise<boolean | undefined>;
}

const NO_COUNTS: TunerCounts = { admitted: 0, refused: 0, rateLimited: 0, undelayed: 0, allowedRps: 0 };

function addCounts(a: TunerCounts, b: TunerCounts): TunerCounts {
  return { admitted: a.admitted + b.admitted, refused: a.refused + b.refused, rateLimited: a.rateLimited + b.rateLimited, undelayed: b.undelayed, allowedRps: b.allowedRps };
}

function sharedOf(state: LearnedRateState, reason: LearnedRateReason): SharedRate {
  return { rateRps: state.rateRps, step: state.step, direction: state.direction, refusedAtRps: state.refusedAtRps, reason };
}

/**
 * After a decrease, the fleet holds for two windows: the members' reports of one 429 storm
 * reach the owner over two of its windows (each member reports on its own clock), and the
 * second must not lower the rate again for requests sent at the old one.
 */
function held(state: LearnedRateState, nowMs: number): LearnedRateState {
  return { ...state, holdUntilMs: Math.max(state.holdUntilMs, nowMs + 2 * DEMAND_WINDOW_MS - 1) };
}

/**
 * The owner's decision on one window of the fleet's counts: a provider's stated rate first,
 * then a rate limit that named no delay (one decrease, held to what the fleet got accepted
 * while it pressed), else a raise only while the fleet's demand pressed on the rate.
 */
export function decideFleetRate(
  state: LearnedRateState,
  counts: TunerCounts,
  windowMs: number,
  nowMs: number,
  settings: LearnedRateSettings,
): { readonly state: LearnedRateState; readonly reason: LearnedRateReason } {
  if (counts.allowedRps > 0) return { state: held(afterRateLimit(state, nowMs, { allowedRps: counts.allowedRps }, undefined, settings), nowMs), reason: 'provider-hint' };
  if (counts.undelayed > 0) {
    // The whole span is one "last window" with nothing current: the rate the fleet got accepted while it pressed.
    const acceptedRps = acceptedRpsOf({ admitted: counts.admitted, rateLimited: counts.rateLimited, windowMs }, { admitted: 0, rateLimited: 0 }, 0, state.rateRps);
    // The tail of one storm reaches the owner over several windows: a decrease after a decrease keeps its step, not twice it.
    const from: LearnedRateState = state.direction === -1 ? { ...state, direction: 0 } : state;
    const next = afterRateLimit(from, nowMs, {}, acceptedRps, settings);
    return { state: next === from ? state : held(next, nowMs), reason: 'rate-limited' };
  }
  const window = { windowMs, admitted: counts.admitted, refused: counts.refused, rateLimited: counts.rateLimited };
  const raised = afterDemandWindow(state, window, settings);
  // The provider's answers to a raise reach the owner a window or two late: the step grows no larger than twice the first one.
  return { state: raised.step > 2 * INITIAL_STEP ? { ...raised, step: 2 * INITIAL_STEP, rateRps: Math.min(raised.rateRps, state.rateRps * (1 + 2 * INITIAL_STEP)) } : raised, reason: 'demand' };
}

export class LearnedLeasedBucket extends LeasedBucket implements LearningBucket {
  readonly settings: LearnedRateSettings;
  /** Told each time the fleet's rate moves (the autopilot part: an event, a log line, a gauge). */
  listener: LearnedRateListener | undefined;
  readonly #tuner: TunerSource;
  /** The fleet's rate as this member last heard it (its own decision when it owns the tuner). */
  #state: LearnedRateState;
  #reason: LearnedRateReason = 'demand';
  #counts: { -readonly [K in keyof TunerCounts]: TunerCounts[K] } = { ...NO_COUNTS };
  /** When the owner last decided: the window its counts cover. */
  #decidedAtMs: number | undefined;
  #reporting = false;
  /** The owner's previous window: its counts and length. */
  #lastWindow: { readonly counts: TunerCounts; readonly windowMs: number } | undefined;
  #timer: TimerHandle | undefined;

  constructor(spec: FleetBucketSpec & { readonly learned: LearnedRateSettings }, leaseMs: number, clock: Clock, random: Random, source: TunerSource) {
    super(spec, leaseMs, clock, random, source);
    this.settings = spec.learned;
    this.#state = initialLearnedRate(spec.learned);
    this.#tuner = source;
    // A report once a demand window, from now until the pool leaves (a background timer: it never keeps the process alive).
    const tick = () => {
      void this.report();
      if (this.#timer !== undefined) this.#timer = setBackgroundTimer(clock, tick, DEMAND_WINDOW_MS);
    };
    this.#timer = setBackgroundTimer(clock, tick, DEMAND_WINDOW_MS);
  }

  get rateRps(): number {
    return this.#state.rateRps;
  }

  override waitMs(nowMs: number): number {
    const waitMs = super.waitMs(nowMs);
    if (waitMs > 0) this.#counts.refused++;
    return waitMs;
  }

  override tryTake(nowMs: number): boolean {
    const taken = super.tryTake(nowMs);
    if (taken) this.#counts.admitted++;
    else this.#counts.refused++;
    return taken;
  }

  override charge(count: number, nowMs: number): void {
    super.charge(count, nowMs);
    if (count > 0) this.#counts.admitted += count;
  }

  onRateLimited(_nowMs: number, hint: RateLimitHint): void {
    this.#counts.rateLimited++;
    if (hint.allowedRps !== undefined && hint.allowedRps > 0) this.#counts.allowedRps = hint.allowedRps;
    else if (!(hint.delayMs !== undefined && hint.delayMs > 0)) this.#counts.undelayed++;
  }

  /** Once a demand window: reports this member's counts; the owner decides for the fleet. */
  async report(): Promise<void> {
    if (this.#reporting) return;
    // While the store is out of reach nothing is tuned, and what was counted meanwhile (at the local share) says nothing of the fleet.
    if (this.mode === 'local') {
      this.#counts = { ...NO_COUNTS };
      return;
    }
    this.#reporting = true;
    const counts = this.#counts;
    this.#counts = { ...NO_COUNTS };
    try {
      const answer = await this.#tuner.tune(counts, sharedOf(this.#state, this.#reason), false);
      if (answer === undefined) return;
      const nowMs = this.clock.now();
      if (!answer.owner || answer.counts === undefined) {
        this.#decidedAtMs = undefined;
        this.#lastWindow = undefined;
        return this.#adopt(answer.rate, nowMs);
      }
      // The owner keeps its own state (its hold on decreases); a new owner starts from the fleet's.
      if (this.#decidedAtMs === undefined) this.#adopt(answer.rate, nowMs);
      const windowMs = nowMs - (this.#decidedAtMs ?? nowMs - DEMAND_WINDOW_MS);
      this.#decidedAtMs = nowMs;
      // Demand is judged over the owner's last two windows: members report on their own clocks, so one
      // window may hold one and a half of a member's reports and the next only half of one.
      const last = this.#lastWindow;
      this.#lastWindow = { counts: answer.counts, windowMs };
      const decided = decideFleetRate(this.#state, last === undefined ? answer.counts : addCounts(last.counts, answer.counts), windowMs + (last?.windowMs ?? 0), nowMs, this.settings);
      if (decided.state.rateRps === this.#state.rateRps) {
        this.#state = decided.state;
        return;
      }
      if ((await this.#tuner.publish(sharedOf(decided.state, decided.reason))) === true) this.#move(decided.state, decided.reason, this.clock.now());
    } finally {
      this.#reporting = false;
    }
  }

  /** This member leaves the tuner (its pool closed, or the fleet): no more reports, and the lease goes to whoever reports next. */
  stop(): void {
    if (this.#timer === undefined) return;
    this.#timer.cancel();
    this.#timer = undefined;
    if (this.mode === 'shared') void this.#tuner.tune({ ...NO_COUNTS }, sharedOf(this.#state, this.#reason), true);
  }

  #adopt(rate: SharedRate, nowMs: number): void {
    const state: LearnedRateState = { rateRps: rate.rateRps, step: rate.step, direction: rate.direction, refusedAtRps: rate.refusedAtRps, holdUntilMs: this.#state.holdUntilMs };
    if (state.rateRps === this.#state.rateRps) this.#state = state;
    else this.#move(state, rate.reason, nowMs);
  }

  #move(state: LearnedRateState, reason: LearnedRateReason, nowMs: number): void {
    const from = this.#state.rateRps;
    this.#state = state;
    this.#reason = reason;
    // One second of the rate as the burst, as the local learner holds.
    this.retune(state.rateRps, Math.max(1, state.rateRps));
    this.listener?.(from, state.rateRps, reason, nowMs);
  }
}

/** A role's fleet bucket: a learned one (one tuner per budget) when its rate is learned, else the leased bucket of a fixed quota. */
export function fleetBucketOf(spec: FleetBucketSpec, leaseMs: number, clock: Clock, random: Random, source: TunerSource): LeasedBucket {
  const { learned } = spec;
  return learned === undefined ? new LeasedBucket(spec, leaseMs, clock, random, source) : new LearnedLeasedBucket({ ...spec, learned }, leaseMs, clock, random, source);
}

/** Stops the tuners among `buckets` (their pool left the fleet). */
export function stopTuners(buckets: Iterable<LeasedBucket>): void {
  for (const bucket of buckets) if (bucket instanceof LearnedLeasedBucket) bucket.stop();
}

/** A learned bucket's reports for `key`, through the fleet's bounded commands (`run`); the owner's lease lasts `leaseMs`. */
export function tunerOf(
  backend: FleetBackend,
  key: string,
  memberId: string,
  leaseMs: number,
  run: <T>(command: () => Promise<T>) => Promise<T | undefined>,
): Pick<TunerSource, 'tune' | 'publish'> {
  return {
    tune: (counts, start, release) => run(() => backend.tune(key, memberId, counts, start, leaseMs, release)),
    publish: (rate) => run(() => backend.publishRate(key, memberId, rate)),
  };
}
