/**
 * A {@link ReputationStore} shared by a fleet. Reads and per-call score arithmetic stay in
 * this process (a `Map`): the hot path never waits on the store. What is fleet-wide are the
 * verdicts — a detector's cooldown (a bench), its escalation level and the strike count that
 * came with it, and a score fallen below `eligibleScore` (out of rotation until time-based
 * recovery, `detector: 'score'`). Merge rule: for each detector the LATEST cooldown end wins
 * and levels/strikes take the maximum; a remote `score` verdict arrives as a bench of the
 * strikes detector until the remote score would recover. Scores, EWMAs and observation counts
 * are never merged (each process's own traffic): a remote verdict can bench, escalate and
 * end, but never rewrite a local score.
 */
import type { RateDetectorState, ReputationDetector, StrikeState } from '../reputation/detectors.js';
import type { ReputationKey } from '../reputation/keys.js';
import type { ReputationEntry, ReputationStore } from '../reputation/store.js';

/** What benched a key: one of the detectors, or a score below `eligibleScore`. */
export type BenchReason = ReputationDetector | 'score';

/** One bench, as it travels between processes. */
export interface SharedBench {
  readonly detector: BenchReason;
  /** End of the cooldown on this process's clock. */
  readonly untilMs: number;
  /** Strikes held (strikes detector) or consecutive trips (rate detectors). */
  readonly level: number;
  /** Strikes held by the process that benched. */
  readonly strikes: number;
}

export interface SharedReputationStore extends ReputationStore {
  /** Merges a bench from another process; returns true when it changed anything here. */
  merge(key: ReputationKey, bench: SharedBench, fresh: () => ReputationEntry): boolean;
}

const DETECTORS = ['strikes', 'critical-rate', 'invalid-rate'] as const;
type Mutable = { -readonly [K in keyof ReputationEntry]: ReputationEntry[K] };

function stateOf(entry: ReputationEntry, detector: ReputationDetector): StrikeState | RateDetectorState {
  return detector === 'strikes' ? entry.strikes : detector === 'critical-rate' ? entry.criticalRate : entry.invalidRate;
}

function levelOf(entry: ReputationEntry, detector: ReputationDetector): number {
  return detector === 'strikes' ? entry.strikes.strikes : (detector === 'critical-rate' ? entry.criticalRate : entry.invalidRate).trips;
}

/**
 * `onBench` is called for every cooldown this process starts or lengthens (not for merged
 * ones, so a bench is never echoed back), with the current time from `nowMs`.
 */
export function createSharedReputationStore(
  nowMs: () => number,
  onBench: (key: ReputationKey, bench: SharedBench) => void,
  /** Until when an entry's score keeps it out of rotation (undefined: eligible). */
  ineligibleUntil: (entry: ReputationEntry, nowMs: number) => number | undefined,
): SharedReputationStore {
  const entries = new Map<ReputationKey, ReputationEntry>();
  return {
    get: (key) => entries.get(key),
    delete: (key) => {
      entries.delete(key);
    },
    set: (key, entry) => {
      const prev = entries.get(key);
      entries.set(key, entry);
      const now = nowMs();
      for (const detector of DETECTORS) {
        const until = stateOf(entry, detector).cooldownUntilMs;
        const before = prev === undefined ? null : stateOf(prev, detector).cooldownUntilMs;
        if (until !== null && until > now && (before === null || until > before)) {
          onBench(key, { detector, untilMs: until, level: levelOf(entry, detector), strikes: entry.strikes.strikes });
        }
      }
      // A score that just fell out of rotation: told once, on the way down.
      const ineligible = ineligibleUntil(entry, now);
      if (ineligible !== undefined && (prev === undefined || ineligibleUntil(prev, now) === undefined)) {
        onBench(key, { detector: 'score', untilMs: ineligible, level: 0, strikes: entry.strikes.strikes });
      }
    },
    merge: (key, bench, fresh) => {
      const entry: Mutable = { ...(entries.get(key) ?? fresh()) };
      const detector = bench.detector === 'score' ? 'strikes' : bench.detector;
      const state = stateOf(entry, detector);
      if (state.cooldownUntilMs !== null && state.cooldownUntilMs >= bench.untilMs) return false;
      if (detector === 'strikes') {
        entry.strikes = { strikes: Math.max(entry.strikes.strikes, bench.level), cooldownUntilMs: bench.untilMs };
      } else {
        const rate = state as RateDetectorState;
        const merged = { ...rate, trips: Math.max(rate.trips, bench.level), cooldownUntilMs: bench.untilMs };
        if (detector === 'critical-rate') entry.criticalRate = merged;
        else entry.invalidRate = merged;
      }
      if (bench.strikes > entry.strikes.strikes) {
        entry.strikes = { ...entry.strikes, strikes: bench.strikes };
      }
      // Reported as running, so this process reports its end like one of its own.
      entry.reportedCooldownUntilMs = Math.max(entry.reportedCooldownUntilMs ?? Number.NEGATIVE_INFINITY, bench.untilMs);
      entries.set(key, entry);
      return true;
    },
  };
}
