/**
 * Where reputation entries live. The tracker only gets and sets whole entries, so a shared
 * store (e.g. one fed by other processes) can replace the in-memory default without
 * touching the detectors. Entries are plain, JSON-safe data (numbers, strings, null).
 */
import type { RateDetectorState, StrikeState } from './detectors.js';
import type { ReputationKey } from './keys.js';
import type { ReputationBand } from './score.js';

/** Everything remembered about one key. Times are monotonic ms of the injected clock. */
export interface ReputationEntry {
  /** Score as of `lastSignalMs` (before time-based recovery, which is applied on read). */
  readonly score: number;
  /** When the last scoring signal was recorded. */
  readonly lastSignalMs: number;
  readonly strikes: StrikeState;
  readonly criticalRate: RateDetectorState;
  readonly invalidRate: RateDetectorState;
  /** Last band reported through a `band` change, to report each change once. */
  readonly reportedBand: ReputationBand;
  /** End of the cooldown last reported as started and not yet reported as ended; `null` if none. */
  readonly reportedCooldownUntilMs: number | null;
}

export interface ReputationStore {
  get(key: ReputationKey): ReputationEntry | undefined;
  set(key: ReputationKey, entry: ReputationEntry): void;
  delete(key: ReputationKey): void;
}

/** The default store: a `Map` in this process. */
export function createMemoryReputationStore(): ReputationStore {
  const entries = new Map<ReputationKey, ReputationEntry>();
  return {
    get: (key) => entries.get(key),
    set: (key, entry) => {
      entries.set(key, entry);
    },
    delete: (key) => {
      entries.delete(key);
    },
  };
}
