/**
 * The reputation tracker: applies signals to per-key entries through the score model and
 * the three detectors, answers eligibility, and reports changes for `reputation` events.
 * Synchronous and pure apart from the store; every call takes the current monotonic time.
 */
import { filterWithCollapseGuard } from './collapse-guard.js';
import { ENGLISH_MESSAGES } from '../config/english-messages.js';
import { reputationConfigSchema, type ReputationConfig, type ReputationOptions } from './config.js';
import {
  INITIAL_RATE_STATE,
  INITIAL_STRIKE_STATE,
  observeRate,
  observeStrike,
  type DetectorTrip,
  type ReputationDetector,
} from './detectors.js';
import type { ReputationKey } from './keys.js';
import { bandRank, bandThresholdsOf, clampScore, recoveredScore, scoreBand, scoreImpact, type ReputationBand } from './score.js';
import type { ReputationSignal } from './signals.js';
import { createMemoryReputationStore, type ReputationEntry, type ReputationStore } from './store.js';

/**
 * A change worth a `reputation` event, with the key's score and band after the call that
 * reported it. Carries no key, URL or endpoint id; the pool adds the endpoint id.
 */
export type ReputationChange = { readonly score: number; readonly band: ReputationBand } & (
  | { readonly type: 'band'; readonly from: ReputationBand }
  | {
      readonly type: 'cooldown-start';
      readonly detector: ReputationDetector;
      /** End of this detector's cooldown (the key stays benched until every detector's ends). */
      readonly untilMs: number;
      readonly durationMs: number;
      /** Strikes held (strikes) or consecutive trip count n (rate detectors). */
      readonly level: number;
    }
  | {
      readonly type: 'cooldown-end';
      /** When the last running cooldown ended (≤ the `nowMs` at which it was noticed). */
      readonly atMs: number;
    }
);

/** What the pool and `snapshot()` see of one key at one instant. */
export interface ReputationView {
  readonly score: number;
  readonly band: ReputationBand;
  /** Until the latest of the detectors' cooldowns ends; 0 when none runs. */
  readonly cooldownRemainingMs: number;
  readonly strikes: number;
  /** Critical-rate EWMA since that detector's last trip (0..1). */
  readonly criticalRate: number;
  /** Invalid-rate EWMA since that detector's last trip (0..1). */
  readonly invalidRate: number;
  /** Score at or above `eligibleScore` and no cooldown running. */
  readonly eligible: boolean;
}

export interface CreateReputationTrackerOptions {
  /** Reputation settings; validated and defaulted with `reputationConfigSchema`. @default {} */
  readonly config?: ReputationOptions;
  /** Where entries live. @default createMemoryReputationStore() */
  readonly store?: ReputationStore;
}

export interface ReputationTracker {
  /** The resolved settings. */
  readonly config: ReputationConfig;
  /** Applies one signal at `nowMs`; returns the changes it (and elapsed time) caused. */
  record(key: ReputationKey, signal: ReputationSignal, nowMs: number): readonly ReputationChange[];
  /**
   * Reports changes due to time alone (a cooldown ended, time-based recovery changed the
   * band) — call it at `nextTimeChangeMs`.
   */
  settle(key: ReputationKey, nowMs: number): readonly ReputationChange[];
  /**
   * The next instant after `nowMs` at which the key's view changes with no signal (a
   * cooldown ends, or a low score recovers); `undefined` if none is pending. A pool that
   * caches eligibility per role refreshes it (and calls `settle`) then.
   */
  nextTimeChangeMs(key: ReputationKey, nowMs: number): number | undefined;
  view(key: ReputationKey, nowMs: number): ReputationView;
  /**
   * Readmission earned by good health probes: what time-based recovery would do after
   * `recoveryTimeoutMs`, now — the score returns to at least `initialScore`, running
   * cooldowns end and strikes reset. The rate detectors keep their escalation history.
   */
  reinstate(key: ReputationKey, nowMs: number): readonly ReputationChange[];
  isEligible(key: ReputationKey, nowMs: number): boolean;
  /** Score as read at `nowMs` (time-based recovery applied). */
  scoreOf(key: ReputationKey, nowMs: number): number;
  /** Admission rank of the key's band: 0 good, 1 fair, 2 poor, 3 ineligible. */
  rankOf(key: ReputationKey, nowMs: number): 0 | 1 | 2 | 3;
  /** End of the running cooldown (latest detector), or `undefined` when none runs. */
  cooldownUntil(key: ReputationKey, nowMs: number): number | undefined;
  /**
   * Drops candidates in cooldown or below `eligibleScore`. Pool-collapse guard: when that
   * would drop every candidate, keeps those with the best score instead (ties all kept).
   * Returns `candidates` itself when none is dropped.
   */
  filterEligible<T>(candidates: readonly T[], keyOf: (candidate: T) => ReputationKey, nowMs: number): readonly T[];
}

type MutableEntry = { -readonly [K in keyof ReputationEntry]: ReputationEntry[K] };

const NO_CHANGES: readonly ReputationChange[] = Object.freeze([]);

export function createReputationTracker(options: CreateReputationTrackerOptions = {}): ReputationTracker {
  const config = reputationConfigSchema.parse(options.config ?? {}, ENGLISH_MESSAGES);
  const store = options.store ?? createMemoryReputationStore();
  const bands = bandThresholdsOf(config);

  const fresh = (nowMs: number): ReputationEntry => initialReputationEntry(config, nowMs);

  const readScore = (e: ReputationEntry, nowMs: number) => recoveredScore(e.score, e.lastSignalMs, nowMs, config);

  const isEligibleEntry = (e: ReputationEntry | undefined, nowMs: number): boolean => {
    if (e === undefined) return config.initialScore >= config.eligibleScore;
    return readScore(e, nowMs) >= config.eligibleScore && cooldownEnd(e) <= nowMs;
  };

  /**
   * Stores `next` and builds the changes against `prev`: a cooldown that ended, cooldowns
   * that started, and a band change (time-based recovery included).
   */
  const commit = (
    key: ReputationKey,
    next: MutableEntry,
    endedAtMs: number | undefined,
    trips: readonly (readonly [ReputationDetector, DetectorTrip | undefined])[],
  ): readonly ReputationChange[] => {
    const score = next.score;
    const band = scoreBand(score, bands);
    let changes: ReputationChange[] | undefined;
    if (endedAtMs !== undefined) {
      changes = [{ type: 'cooldown-end', atMs: endedAtMs, score, band }];
      next.reportedCooldownUntilMs = null;
    }
    for (const [detector, trip] of trips) {
      if (trip === undefined) continue;
      const { untilMs, durationMs, level } = trip;
      (changes ??= []).push({ type: 'cooldown-start', detector, untilMs, durationMs, level, score, band });
      next.reportedCooldownUntilMs = cooldownEnd(next);
    }
    if (band !== next.reportedBand) {
      (changes ??= []).push({ type: 'band', from: next.reportedBand, score, band });
      next.reportedBand = band;
    }
    store.set(key, next);
    return changes ?? NO_CHANGES;
  };

  const settle = (key: ReputationKey, nowMs: number): readonly ReputationChange[] => {
    const prev = store.get(key);
    if (prev === undefined) return NO_CHANGES;
    const score = readScore(prev, nowMs);
    const ended = endedCooldown(prev, nowMs);
    if (ended === undefined && score === prev.score) return NO_CHANGES;
    return commit(key, { ...prev, score }, ended, []);
  };

  const noTrips: readonly [ReputationDetector, undefined][] = [];

  const record = (key: ReputationKey, signal: ReputationSignal, nowMs: number): readonly ReputationChange[] => {
    // No-fault outcomes (caller abort, capability limit, our own deadline) leave no trace.
    if (signal.kind === 'none') return settle(key, nowMs);
    const prev = store.get(key) ?? fresh(nowMs);
    const kind = signal.kind;
    const isCritical = kind === 'critical' || kind === 'fatal';
    const isPositive = kind === 'success' || kind === 'recovery';
    const strike = observeStrike(prev.strikes, isPositive ? 'positive' : isCritical ? 'critical' : 'other', nowMs, config.strikes);

    // Health probes move the score and strikes but never feed the rate detectors: a bench
    // must reflect what callers receive, not a probe that may be stricter than real traffic.
    let criticalRate = prev.criticalRate;
    let invalidRate = prev.invalidRate;
    let criticalTrip: DetectorTrip | undefined;
    let invalidTrip: DetectorTrip | undefined;
    if (signal.isHealthCheck !== true) {
      const c = observeRate(criticalRate, isCritical ? 1 : 0, nowMs, config.criticalRate);
      const v = observeRate(invalidRate, signal.protocolViolation === true ? 1 : 0, nowMs, config.invalidRate);
      criticalRate = c.state;
      criticalTrip = c.trip;
      invalidRate = v.state;
      invalidTrip = v.trip;
    }

    const next: MutableEntry = {
      score: clampScore(readScore(prev, nowMs) + scoreImpact(signal, config).delta),
      lastSignalMs: nowMs,
      strikes: strike.state,
      criticalRate,
      invalidRate,
      reportedBand: prev.reportedBand,
      reportedCooldownUntilMs: prev.reportedCooldownUntilMs,
    };
    const anyTrip = strike.trip !== undefined || criticalTrip !== undefined || invalidTrip !== undefined;
    const trips = anyTrip
      ? ([['strikes', strike.trip], ['critical-rate', criticalTrip], ['invalid-rate', invalidTrip]] as const)
      : noTrips;
    return commit(key, next, endedCooldown(prev, nowMs), trips);
  };

  const view = (key: ReputationKey, nowMs: number): ReputationView => {
    const e = store.get(key);
    const score = e === undefined ? config.initialScore : readScore(e, nowMs);
    return {
      score,
      band: scoreBand(score, bands),
      cooldownRemainingMs: e === undefined ? 0 : Math.max(0, cooldownEnd(e) - nowMs),
      strikes: e?.strikes.strikes ?? 0,
      criticalRate: e?.criticalRate.rate ?? 0,
      invalidRate: e?.invalidRate.rate ?? 0,
      eligible: isEligibleEntry(e, nowMs),
    };
  };

  const scoreOf = (key: ReputationKey, nowMs: number): number => {
    const e = store.get(key);
    return e === undefined ? config.initialScore : readScore(e, nowMs);
  };

  const reinstate = (key: ReputationKey, nowMs: number): readonly ReputationChange[] => {
    const prev = store.get(key);
    if (prev === undefined) return NO_CHANGES;
    const endNow = (until: number | null) => (until !== null && until > nowMs ? nowMs : until);
    const next: MutableEntry = {
      ...prev,
      score: Math.max(readScore(prev, nowMs), config.initialScore),
      lastSignalMs: nowMs,
      strikes: { strikes: 0, cooldownUntilMs: endNow(prev.strikes.cooldownUntilMs) },
      criticalRate: { ...prev.criticalRate, cooldownUntilMs: endNow(prev.criticalRate.cooldownUntilMs) },
      invalidRate: { ...prev.invalidRate, cooldownUntilMs: endNow(prev.invalidRate.cooldownUntilMs) },
    };
    return commit(key, next, endedCooldown(next, nowMs), []);
  };

  return {
    config,
    record,
    settle,
    reinstate,
    view,
    scoreOf,
    isEligible: (key, nowMs) => isEligibleEntry(store.get(key), nowMs),
    rankOf: (key, nowMs) => bandRank(scoreOf(key, nowMs), bands),
    cooldownUntil: (key, nowMs) => {
      const e = store.get(key);
      const end = e === undefined ? -Infinity : cooldownEnd(e);
      return end > nowMs ? end : undefined;
    },
    nextTimeChangeMs: (key, nowMs) => {
      const e = store.get(key);
      if (e === undefined) return undefined;
      let next = Infinity;
      const end = cooldownEnd(e);
      if (end > nowMs) next = end;
      const recoverAt = e.lastSignalMs + config.recoveryTimeoutMs;
      if (config.recoveryTimeoutMs > 0 && e.score < config.initialScore && recoverAt > nowMs) next = Math.min(next, recoverAt);
      return next === Infinity ? undefined : next;
    },
    filterEligible: (candidates, keyOf, nowMs) =>
      filterWithCollapseGuard(
        candidates,
        (c) => isEligibleEntry(store.get(keyOf(c)), nowMs),
        (c) => scoreOf(keyOf(c), nowMs),
      ),
  };
}

/** The entry of a key never seen before: the initial score, no strikes, no cooldown. */
export function initialReputationEntry(config: ReputationConfig, nowMs: number): ReputationEntry {
  return {
    score: config.initialScore,
    lastSignalMs: nowMs,
    strikes: INITIAL_STRIKE_STATE,
    criticalRate: INITIAL_RATE_STATE,
    invalidRate: INITIAL_RATE_STATE,
    reportedBand: scoreBand(config.initialScore, bandThresholdsOf(config)),
    reportedCooldownUntilMs: null,
  };
}

/** End of a cooldown reported as started that has run out by `nowMs`, if any. */
function endedCooldown(e: ReputationEntry, nowMs: number): number | undefined {
  if (e.reportedCooldownUntilMs === null) return undefined;
  const end = cooldownEnd(e);
  return end <= nowMs ? end : undefined;
}

/** The latest end among the detectors' cooldowns (−∞ when none ever ran). */
function cooldownEnd(e: ReputationEntry): number {
  return Math.max(
    e.strikes.cooldownUntilMs ?? -Infinity,
    e.criticalRate.cooldownUntilMs ?? -Infinity,
    e.invalidRate.cooldownUntilMs ?? -Infinity,
  );
}
