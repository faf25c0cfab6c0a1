/**
 * The additive score model: a score in [0, 100] moved by fixed deltas per
 * signal, a success scaled by its latency, bands for admission order, and time-based
 * recovery computed on read.
 */
import { latencyThresholdsOf, type LatencyThresholds, type ReputationConfig } from './config.js';
import type { ReputationSignal } from './signals.js';

export const MIN_SCORE = 0;
export const MAX_SCORE = 100;

/** Latency class of a success. */
export type LatencyClass = 'fast' | 'normal' | 'slow' | 'beyond-slow';

/** Extra penalty a successful but late answer earns on top of its (zeroed) success. */
export type LatencyPenalty = 'none' | 'slow' | 'very-slow';

/**
 * Classifies a latency. Boundaries are inclusive: exactly `fastMs` is still fast, and the
 * penalties apply strictly beyond `penaltyMs` / `severeMs`.
 */
export function classifyLatency(latencyMs: number, t: LatencyThresholds): LatencyClass {
  if (latencyMs <= t.fastMs) return 'fast';
  if (latencyMs <= t.normalMs) return 'normal';
  if (latencyMs <= t.slowMs) return 'slow';
  return 'beyond-slow';
}

/** Beyond `severeMs` → `very-slow` (replaces, not adds to, `slow`); beyond `penaltyMs` → `slow`. */
export function latencyPenalty(latencyMs: number, t: LatencyThresholds): LatencyPenalty {
  if (latencyMs > t.severeMs) return 'very-slow';
  if (latencyMs > t.penaltyMs) return 'slow';
  return 'none';
}

export interface ScoreImpact {
  /** Total change to apply to the score. */
  readonly delta: number;
  /** Latency multiplier applied to a success (1 for other signals or no latency). */
  readonly multiplier: number;
}

/**
 * Score change of one signal. A success is `impacts.success × multiplier(latency)` plus the
 * late-answer penalty (`impacts.slow` beyond `penaltyMs`, `impacts.verySlow` beyond
 * `severeMs`); a success without `latencyMs` counts ×1 with no penalty. Other kinds are
 * fixed deltas; `none` is 0.
 */
export function scoreImpact(signal: ReputationSignal, config: ReputationConfig): ScoreImpact {
  const i = config.impacts;
  switch (signal.kind) {
    case 'success': {
      const latencyMs = signal.latencyMs;
      if (latencyMs === undefined || !Number.isFinite(latencyMs)) return { delta: i.success, multiplier: 1 };
      const t = latencyThresholdsOf(config);
      const m = config.latency.multipliers;
      const cls = classifyLatency(latencyMs, t);
      const multiplier = cls === 'fast' ? m.fast : cls === 'normal' ? m.normal : cls === 'slow' ? m.slow : m.beyondSlow;
      const penalty = latencyPenalty(latencyMs, t);
      const extra = penalty === 'very-slow' ? i.verySlow : penalty === 'slow' ? i.slow : 0;
      return { delta: i.success * multiplier + extra, multiplier };
    }
    case 'recovery':
      return { delta: i.recovery, multiplier: 1 };
    case 'slow':
      return { delta: i.slow, multiplier: 1 };
    case 'very-slow':
      return { delta: i.verySlow, multiplier: 1 };
    case 'minor':
      return { delta: i.minor, multiplier: 1 };
    case 'major':
      return { delta: i.major, multiplier: 1 };
    case 'critical':
      return { delta: i.critical, multiplier: 1 };
    case 'fatal':
      return { delta: i.fatal, multiplier: 1 };
    case 'none':
      return { delta: 0, multiplier: 1 };
  }
}

export function clampScore(value: number): number {
  return value < MIN_SCORE ? MIN_SCORE : value > MAX_SCORE ? MAX_SCORE : value;
}

/** `good` ≥ 70, `fair` ≥ 50, `poor` ≥ eligible (30), else `ineligible` (defaults). */
export type ReputationBand = 'good' | 'fair' | 'poor' | 'ineligible';

/** Band thresholds; the defaults are 70 / 50 / 30. */
export interface BandThresholds {
  readonly good: number;
  readonly fair: number;
  readonly eligible: number;
}

export const DEFAULT_BAND_THRESHOLDS: BandThresholds = { good: 70, fair: 50, eligible: 30 };

export function bandThresholdsOf(config: ReputationConfig): BandThresholds {
  return { good: config.bands.good, fair: config.bands.fair, eligible: config.eligibleScore };
}

export function scoreBand(score: number, t: BandThresholds = DEFAULT_BAND_THRESHOLDS): ReputationBand {
  if (score >= t.good) return 'good';
  if (score >= t.fair) return 'fair';
  if (score >= t.eligible) return 'poor';
  return 'ineligible';
}

/** Admission order inside a tier: 0 for ≥70, 1 for ≥50, 2 for ≥30, 3 below (defaults). */
export function bandRank(score: number, t: BandThresholds = DEFAULT_BAND_THRESHOLDS): 0 | 1 | 2 | 3 {
  if (score >= t.good) return 0;
  if (score >= t.fair) return 1;
  if (score >= t.eligible) return 2;
  return 3;
}

/**
 * Score as read at `nowMs`: a score below `initialScore` reads as `initialScore` once
 * `recoveryTimeoutMs` have passed since the last signal (the time an unused or benched
 * endpoint needs to be given a fresh chance). Only the score recovers; strikes, rates and
 * escalation history do not, so a still-broken endpoint is benched longer next time.
 */
export function recoveredScore(score: number, lastSignalMs: number, nowMs: number, config: ReputationConfig): number {
  const timeout = config.recoveryTimeoutMs;
  if (timeout > 0 && score < config.initialScore && nowMs - lastSignalMs >= timeout) return config.initialScore;
  return score;
}
