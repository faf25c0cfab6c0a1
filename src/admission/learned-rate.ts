/**
 * The learned rate of an `'auto'` role (issue 30 §1): pure decisions over counters the
 * bucket keeps, so they are exact under a fake clock. Field facts (REFERENCE "Adaptive
 * limits") shaped it:
 * - raise only while demand presses on the limit (dRPC, Ponder): eRPC's tuner, which raises
 *   on any error-free minute, drifts up on idle methods and then bursts into 429s;
 * - an adaptive step (dRPC): it grows while the direction holds, so a moved limit is found in
 *   a few windows, and halves on a reversal, so the rate settles close under the limit;
 * - a decrease goes no higher than the rate the provider accepted just before it refused:
 *   a provider's own burst hides an overshoot for seconds, and the accepted rate, once its
 *   burst is spent, is the limit itself;
 * - that limit is remembered: up to 10 % above it the rate climbs by the smallest step, so a
 *   settled role probes the limit gently instead of overshooting it by half a step each time
 *   (the 429s a probe costs stay few), and past it the step grows again (a raised limit is
 *   found in seconds);
 * - provider hints win: an explicit allowed rate (Infura's `data.rate.allowed_rps`) is taken
 *   as it is; a rate limit that carries a delay (`Retry-After`, `backoff_seconds`) is paced
 *   by the cooldown it starts, not by a guess.
 */

/** Why a learned rate moved: demand pressed on it, a rate limit named no delay, or the provider said its rate. */
export type LearnedRateReason = 'demand' | 'rate-limited' | 'provider-hint';

/** Bounds and start of a learned rate, in requests per second. */
export interface LearnedRateSettings {
  readonly minRps: number;
  readonly maxRps: number;
  readonly startRps: number;
}

export interface LearnedRateState {
  /** The rate admission grants now, in requests per second. */
  readonly rateRps: number;
  /** The relative step of the next move (a fraction of the rate). */
  readonly step: number;
  /** The direction of the last move: 1 up, -1 down, 0 none yet (or a hint reset it). */
  readonly direction: -1 | 0 | 1;
  /** The limit the provider showed when it last refused (undefined: never). */
  readonly refusedAtRps: number | undefined;
  /** Until when further rate limits do not lower the rate again (answers to requests sent at the old rate). */
  readonly holdUntilMs: number;
}

/** What one demand window saw. */
export interface DemandWindow {
  /** Length of the window, in ms. */
  readonly windowMs: number;
  /** Tokens taken (requests admitted on this role). */
  readonly admitted: number;
  /** Times admission found no token for a call that wanted one (demand above the rate). */
  readonly refused: number;
  /** Rate limits reported in the window (any kind: a window with one never raises). */
  readonly rateLimited: number;
}

/**
 * Requests the provider did not refuse, per second, over the last whole window and the
 * current one (`currentMs` long so far) — only while the role sent at about `rateRps`:
 * below it, the accepted rate says nothing of the limit (undefined then, and before a whole
 * window passed). The rate a decrease is held to.
 */
export function acceptedRpsOf(
  last: { readonly admitted: number; readonly rateLimited: number; readonly windowMs: number },
  current: { readonly admitted: number; readonly rateLimited: number },
  currentMs: number,
  rateRps: number,
): number | undefined {
  if (last.windowMs === 0) return undefined;
  const spanMs = last.windowMs + currentMs;
  const sent = last.admitted + current.admitted;
  if ((sent * 1000) / spanMs < PRESSING_UTILISATION * rateRps) return undefined;
  return (Math.max(0, sent - last.rateLimited - current.rateLimited) * 1000) / spanMs;
}

/** What a rate limit says besides itself. */
export interface RateLimitHint {
  /** The provider's delay before the next request (Retry-After, backoff_seconds), in ms. */
  readonly delayMs?: number | undefined;
  /** The rate the provider says it allows (Infura's `allowed_rps`), in requests per second. */
  readonly allowedRps?: number | undefined;
}

export const INITIAL_STEP = 0.1;
export const MAX_STEP = 0.5;
export const MIN_STEP = 0.025;
/** How often the rate may rise: one demand window, in ms. */
export const DEMAND_WINDOW_MS = 1_000;
/** How far above the remembered limit the rate climbs by the smallest step (a fraction of it). */
export const PROBE_BAND = 0.1;
/** Share of the rate a window must have used, with some call refused, to count as demand pressing on it. */
export const PRESSING_UTILISATION = 0.9;
/** After a decrease, how long further rate limits (answers to requests sent at the old rate) are not counted again, in ms. */
export const DECREASE_HOLD_MS = 500;
/** Default bounds, in requests per second (Ponder starts at 20 and keeps within 3–500; ours reach further up). */
export const DEFAULT_LEARNED_RATE: LearnedRateSettings = { minRps: 1, maxRps: 10_000, startRps: 20 };

function clamp(rateRps: number, settings: LearnedRateSettings): number {
  return Math.min(settings.maxRps, Math.max(settings.minRps, rateRps));
}

export function initialLearnedRate(settings: LearnedRateSettings): LearnedRateState {
  return { rateRps: clamp(settings.startRps, settings), step: INITIAL_STEP, direction: 0, refusedAtRps: undefined, holdUntilMs: 0 };
}

/** The step of a move in `direction`: doubled while the direction holds, halved on a reversal. */
function nextStep(state: LearnedRateState, direction: 1 | -1): number {
  if (state.direction === 0) return state.step;
  return state.direction === direction ? Math.min(MAX_STEP, state.step * 2) : Math.max(MIN_STEP, state.step / 2);
}

/** Whether the window's demand pressed on the rate: it used nearly all of it and still had calls waiting. */
export function isPressing(window: DemandWindow, rateRps: number): boolean {
  return window.refused > 0 && window.admitted >= PRESSING_UTILISATION * rateRps * (window.windowMs / 1000);
}

/** At the end of a demand window: raise the rate only when demand pressed on it and nothing was refused by the provider. */
export function afterDemandWindow(state: LearnedRateState, window: DemandWindow, settings: LearnedRateSettings): LearnedRateState {
  if (window.rateLimited > 0 || !isPressing(window, state.rateRps) || state.rateRps >= settings.maxRps) return state;
  let step = nextStep(state, 1);
  // Back towards the rate the provider last refused: the smallest step, so the probe costs few 429s.
  const refusedAt = state.refusedAtRps;
  if (refusedAt !== undefined && state.rateRps * (1 + step) > refusedAt && state.rateRps < refusedAt * (1 + PROBE_BAND)) step = MIN_STEP;
  return { ...state, rateRps: clamp(state.rateRps * (1 + step), settings), step, direction: 1 };
}

/**
 * On a rate limit at `nowMs`: take the provider's allowed rate, leave a delayed one to its
 * cooldown, or lower the rate — by the step, and to no more than `acceptedRps` (the rate the
 * provider answered lately, undefined when unknown) less the smallest step.
 */
export function afterRateLimit(state: LearnedRateState, nowMs: number, hint: RateLimitHint, acceptedRps: number | undefined, settings: LearnedRateSettings): LearnedRateState {
  if (hint.allowedRps !== undefined && hint.allowedRps > 0) {
    const rateRps = clamp(hint.allowedRps, settings);
    return { rateRps, step: INITIAL_STEP, direction: 0, refusedAtRps: rateRps, holdUntilMs: nowMs + DECREASE_HOLD_MS };
  }
  if (hint.delayMs !== undefined && hint.delayMs > 0) return state;
  if (nowMs < state.holdUntilMs) return state;
  const step = nextStep(state, -1);
  const stepped = state.rateRps * (1 - step);
  // Never below half the rate at once: an accepted rate measured over a quiet spell says little.
  const rateRps = acceptedRps === undefined ? stepped : Math.max(state.rateRps * (1 - MAX_STEP), Math.min(stepped, acceptedRps * (1 - MIN_STEP)));
  const refusedAtRps = acceptedRps === undefined ? state.rateRps : Math.min(state.rateRps, acceptedRps);
  return { rateRps: clamp(rateRps, settings), step, direction: -1, refusedAtRps, holdUntilMs: nowMs + DECREASE_HOLD_MS };
}
