import type { RoleState } from '../admission/role-state.js';
import { DEFAULT_EXPLORE_RATIO, type BalanceSettings } from './balance-settings.js';

/**
 * Latency-aware choice inside one tier and reputation band (docs/concepts.md "Latency-aware choice"): admission offers
 * two admissible candidates in rotation order, and the balancer says which one will answer
 * sooner, by peak-EWMA latency × (requests in flight on the endpoint + 1) — the cost of
 * Finagle's and Linkerd's power-of-two-choices balancers.
 *
 * The rotation's candidate keeps the call unless the other is clearly cheaper
 * ({@link SWITCH_RATIO}): endpoints that are about as good keep their rotation (and the
 * operator cap's weighted shares) instead of trading calls on noise, while a slow or
 * overloaded one loses its share at once. An idempotent read may explore (`exploreRatio`):
 * it then takes the costlier candidate if that one was not heard from for a second, so a
 * slow endpoint's recovery is noticed (a hedge covers the read if it is still slow). Sends
 * never explore.
 */


/** The second candidate wins only when its cost is below this fraction of the first's. */
export const SWITCH_RATIO = 0.8;
const LATENCY_FLOOR_MS = 0.001;
/** Repeated lost races double an endpoint's estimate up to this, in ms. */
const MAX_LOST_ESTIMATE_MS = 30_000;
/** An exploring read looks at a costlier endpoint only when it was not heard from for this long, in ms. */
export const EXPLORE_STALE_MS = 1_000;

const isStale = (role: RoleState, nowMs: number): boolean =>
  role.load.inFlight === 0 && nowMs - role.load.latency.lastSampleAtMs >= EXPLORE_STALE_MS;
/** An endpoint this many times slower than the other candidate does not count for the operator cap. */
export const OUTLIER_FACTOR = 4;
/** …and at least this much slower, in ms: sub-millisecond noise on a fast network makes no outlier. */
export const OUTLIER_MIN_EXTRA_MS = 25;
/** Successes between two recomputations of a kind's median latency. */
const MEDIAN_EVERY = 32;

/** The (lower) median latency estimate of one kind's endpoints: where an idle endpoint's estimate relaxes to. */
class Baseline {
  medianMs = 0;
  #sinceUpdate = 0;
  readonly #roles: readonly RoleState[];
  readonly #scratch: number[] = [];

  constructor(roles: readonly RoleState[]) {
    this.#roles = roles;
  }

  get hasChoice(): boolean {
    return this.#roles.length > 1;
  }

  observed(nowMs: number): void {
    if (++this.#sinceUpdate < MEDIAN_EVERY) return;
    this.#sinceUpdate = 0;
    const estimates = this.#scratch;
    estimates.length = 0;
    for (const role of this.#roles) if (role.load.latency.samples > 0) estimates.push(role.load.latency.estimate(nowMs, this.medianMs));
    if (estimates.length === 0) return;
    estimates.sort((a, b) => a - b);
    // The lower median: with two endpoints, one of them slow, the baseline is the fast one.
    this.medianMs = estimates[(estimates.length - 1) >> 1]!;
  }
}

export class Balancer {
  readonly exploreRatio: number;
  readonly #baselines = new Map<string, Baseline>();

  constructor(roles: readonly RoleState[], settings: BalanceSettings) {
    this.exploreRatio = settings.exploreRatio ?? DEFAULT_EXPLORE_RATIO;
    const byKind = new Map<string, RoleState[]>();
    for (const role of roles) {
      const list = byKind.get(role.settings.kind) ?? [];
      list.push(role);
      byKind.set(role.settings.kind, list);
    }
    for (const [kind, list] of byKind) this.#baselines.set(kind, new Baseline(list));
  }

  /** A good answer from `role` after `latencyMs` (nothing to learn when the kind has one endpoint: there is no choice). */
  observe(role: RoleState, latencyMs: number, nowMs: number): void {
    const baseline = this.#baselines.get(role.settings.kind);
    if (baseline === undefined || !baseline.hasChoice) return;
    role.load.latency.observe(latencyMs, nowMs, baseline.medianMs);
    baseline.observed(nowMs);
  }

  /** An attempt on `role` timed out after `elapsedMs`: a lower bound of its latency. */
  observeAtLeast(role: RoleState, elapsedMs: number, nowMs: number): void {
    role.load.latency.observeAtLeast(elapsedMs, nowMs);
  }

  /**
   * An attempt on `role` lost a hedge race and was cancelled after `elapsedMs`: another
   * endpoint, asked later, answered first. Its latency is at least the elapsed time and at
   * least twice what was thought, so repeated losses push the endpoint out of the way
   * (50 → 100 → 200 ms …) instead of inviting the next call at the same estimate.
   */
  observeLost(role: RoleState, elapsedMs: number, nowMs: number): void {
    // Twice the last value, not the relaxed estimate: the relaxation is proportional to the
    // value, so doubling what had relaxed would invite the loser back at the same pace.
    const doubled = Math.min(2 * role.load.latency.lastValueMs, MAX_LOST_ESTIMATE_MS);
    role.load.latency.observeAtLeast(Math.max(elapsedMs, doubled), nowMs);
  }

  /**
   * Expected time to an answer, relative: latency × (endpoint's requests in flight + 1). The
   * latency is the peak-EWMA estimate, or longer when the endpoint has had requests in flight
   * and answered none for longer than that: a node that stalls is noticed before its first
   * slow answer arrives.
   */
  costOf(role: RoleState, nowMs: number): number {
    // The 1 µs floor keeps load in the cost of an endpoint not measured yet (estimate 0).
    return (this.latencyOf(role, nowMs) + LATENCY_FLOOR_MS) * (role.load.inFlight + 1);
  }

  /** The endpoint's latency: its estimate, or how long it has been silent with requests in flight, if longer. */
  latencyOf(role: RoleState, nowMs: number): number {
    const { load } = role;
    const baselineMs = this.#baselines.get(role.settings.kind)?.medianMs ?? 0;
    return Math.max(load.latency.estimate(nowMs, baselineMs), load.silentForMs(nowMs));
  }

  /**
   * Whether `slow` is a latency outlier next to `fast` ({@link OUTLIER_FACTOR}× slower or
   * more, and {@link OUTLIER_MIN_EXTRA_MS} more at least): the operator cap yields to it, as it does to a worse reputation band — sending a
   * call to a node several times slower is no feasible way to honour a share.
   */
  isOutlier(slow: RoleState, fast: RoleState, nowMs: number): boolean {
    const slowMs = this.latencyOf(slow, nowMs);
    const fastMs = this.latencyOf(fast, nowMs);
    return slowMs >= OUTLIER_FACTOR * fastMs && slowMs - fastMs >= OUTLIER_MIN_EXTRA_MS;
  }

  /**
   * Whether `second` should take the call instead of the rotation's `first`. An exploring
   * call takes the costlier one, but only when nothing was heard from it for
   * {@link EXPLORE_STALE_MS} and nothing is in flight there: one look per endpoint per
   * interval is enough to notice a recovery, and cheaper than a fixed share of traffic.
   */
  prefersSecond(first: RoleState, second: RoleState, nowMs: number, explore: boolean): boolean {
    const firstCost = this.costOf(first, nowMs);
    const secondCost = this.costOf(second, nowMs);
    if (explore) {
      const costlier = secondCost > firstCost ? second : first;
      if (isStale(costlier, nowMs)) return costlier === second;
    }
    return secondCost < firstCost * SWITCH_RATIO;
  }
}
