/**
 * The three cooldown detectors, as pure state transitions. Each keeps its
 * own cooldown and its own escalation history: a detector never reads another's state, so
 * a bench earned by one can neither escalate nor shorten another's.
 */
import type { RateDetectorConfig, StrikeConfig } from './config.js';

export type ReputationDetector = 'strikes' | 'critical-rate' | 'invalid-rate';

/** A detector set a cooldown. */
export interface DetectorTrip {
  readonly untilMs: number;
  readonly durationMs: number;
  /** Escalation level: strikes held (strike detector) or consecutive trip count (rate detectors). */
  readonly level: number;
}

export interface DetectorStep<S> {
  readonly state: S;
  readonly trip: DetectorTrip | undefined;
}

// ---------------------------------------------------------------------------------------
// Consecutive strikes: catches a burst of critical/fatal answers.

export interface StrikeState {
  readonly strikes: number;
  /** End of this detector's current or last cooldown; `null` if it never tripped. */
  readonly cooldownUntilMs: number | null;
}

export const INITIAL_STRIKE_STATE: StrikeState = { strikes: 0, cooldownUntilMs: null };

/** Cooldown for a strike count at or above the threshold: base·2^(strikes−threshold), capped. */
export function strikeCooldownMs(strikes: number, config: StrikeConfig): number {
  const exponent = Math.min(strikes - config.threshold, 52);
  return Math.min(config.baseCooldownMs * 2 ** exponent, config.maxCooldownMs);
}

/**
 * A positive signal removes `decayPerPositive` strikes (floor 0); a critical/fatal adds
 * one, and at `threshold` or more strikes (re)starts the cooldown. Other signals leave the
 * strikes alone. A cooldown is only ever extended, never shortened.
 */
export function observeStrike(
  state: StrikeState,
  outcome: 'positive' | 'critical' | 'other',
  nowMs: number,
  config: StrikeConfig,
): DetectorStep<StrikeState> {
  if (outcome === 'positive') {
    if (state.strikes === 0) return { state, trip: undefined };
    const strikes = Math.max(0, state.strikes - config.decayPerPositive);
    return { state: { strikes, cooldownUntilMs: state.cooldownUntilMs }, trip: undefined };
  }
  if (outcome !== 'critical') return { state, trip: undefined };
  const strikes = state.strikes + 1;
  if (strikes < config.threshold) return { state: { strikes, cooldownUntilMs: state.cooldownUntilMs }, trip: undefined };
  const durationMs = strikeCooldownMs(strikes, config);
  const untilMs = Math.max(nowMs + durationMs, state.cooldownUntilMs ?? -Infinity);
  return { state: { strikes, cooldownUntilMs: untilMs }, trip: { untilMs, durationMs, level: strikes } };
}

// ---------------------------------------------------------------------------------------
// Rate detectors: an EWMA of a 0/1 indicator that catches a sustained bad rate no volume of
// successes can hide (critical-rate: critical/fatal; invalid-rate: protocol violations).

export interface RateDetectorState {
  /** EWMA of the indicator since the last trip. */
  readonly rate: number;
  /** Observations since the last trip (or since creation). */
  readonly observations: number;
  /** Consecutive trips of this detector (n); restarts at 1 after a clean period. */
  readonly trips: number;
  /** End of this detector's current or last cooldown; `null` if it never tripped. */
  readonly cooldownUntilMs: number | null;
}

export const INITIAL_RATE_STATE: RateDetectorState = { rate: 0, observations: 0, trips: 0, cooldownUntilMs: null };

/** Linear escalation: n × step, capped. */
export function rateCooldownMs(trips: number, config: RateDetectorConfig): number {
  return Math.min(config.cooldownStepMs * trips, config.maxCooldownMs);
}

/**
 * Feeds one observation (`indicator` 1 = bad, 0 = good).
 *
 * While this detector's own cooldown runs it neither observes nor trips: the bench is its
 * verdict, and traffic that still reaches the endpoint (collapse guard, hedges) must not
 * escalate it again within the same cooldown. A trip resets the EWMA and the observation
 * count, so the endpoint must re-accumulate a sustained rate from zero to trip again.
 *
 * Escalation reads only this detector's own history: the trip is consecutive (n + 1) when
 * it lands less than `escalationResetMs` after the end of this detector's previous
 * cooldown; otherwise n restarts at 1. Cooldowns set by other detectors are invisible here.
 */
export function observeRate(
  state: RateDetectorState,
  indicator: 0 | 1,
  nowMs: number,
  config: RateDetectorConfig,
): DetectorStep<RateDetectorState> {
  const previousUntil = state.cooldownUntilMs;
  if (previousUntil !== null && nowMs < previousUntil) return { state, trip: undefined };
  const rate = state.rate * (1 - config.alpha) + config.alpha * indicator;
  const observations = state.observations + 1;
  if (observations < config.minObservations || rate < config.threshold) {
    return { state: { rate, observations, trips: state.trips, cooldownUntilMs: previousUntil }, trip: undefined };
  }
  const consecutive = previousUntil !== null && nowMs - previousUntil < config.escalationResetMs;
  const trips = consecutive ? state.trips + 1 : 1;
  const durationMs = rateCooldownMs(trips, config);
  const untilMs = nowMs + durationMs;
  return {
    state: { rate: 0, observations: 0, trips, cooldownUntilMs: untilMs },
    trip: { untilMs, durationMs, level: trips },
  };
}
