/**
 * The store behind a fleet, reduced to the operations the coordinator and the shared read
 * cache need. Redis
 * implements them with short Lua scripts (`redis-backend.ts`); tests use an in-memory one
 * (`memory-backend.ts`) on a fake clock. Every operation may reject or hang: the
 * coordinator bounds each with a timeout and falls back to the local share.
 */
import type { LearnedRateReason } from '../admission/learned-rate.js';
import type { FleetFact, SpendTotals, StoredRead } from './types.js';

/** What a take from the shared bucket granted. */
export interface FleetGrant {
  /** Tokens granted (0 … requested). */
  readonly granted: number;
  /** When nothing was granted: ms until the tokens asked for are there (store clock). */
  readonly waitMs: number;
}

/** A learned rate as the fleet's tuner stores it (the owner's hold on decreases stays in the owner's memory). */
export interface SharedRate {
  readonly rateRps: number;
  readonly step: number;
  readonly direction: -1 | 0 | 1;
  readonly refusedAtRps: number | undefined;
  readonly reason: LearnedRateReason;
}

/** What members tell the tuner of a learned budget: their demand and the rate limits they met since their last report. */
export interface TunerCounts {
  /** Tokens taken (requests admitted). */
  readonly admitted: number;
  /** Times admission found no token (demand above the rate). */
  readonly refused: number;
  /** Rate limits of any kind (a window with one never raises). */
  readonly rateLimited: number;
  /** Rate limits that named no delay (each lowers the rate, once per hold). */
  readonly undelayed: number;
  /** The last rate a provider said it allows (Infura's `allowed_rps`); 0: none. */
  readonly allowedRps: number;
}

/** A tuner's report answered: the fleet's rate, and — to the owner only — every member's counts since its last report. */
export interface TuneAnswer {
  readonly rate: SharedRate;
  readonly owner: boolean;
  readonly counts: TunerCounts | undefined;
}

/** A fact read back from the store, with the member that shared it. */
export interface ReceivedFact {
  readonly from: string;
  readonly fact: FleetFact;
}

export interface FleetBackend {
  /** False when the connection is known to be down: a command would only queue. */
  ready(): boolean;
  /**
   * Takes up to `want` tokens from the shared bucket `key` (continuous refill at
   * `requestsPerSecond`, capacity `burstCapacity`). A missing bucket starts full, or empty
   * with `startEmpty` (the fleet was already spending: the store lost its state). `restart`:
   * the stored state is stale (this process spent its local share meanwhile): start over
   * as if missing — a bucket that refilled while the fleet was spending must not add a burst.
   * `learned`: the rate is the tuner's of the same key (`tune`) once it has one.
   */
  take(key: string, requestsPerSecond: number, burstCapacity: number, want: number, startEmpty: boolean, restart: boolean, learned: boolean): Promise<FleetGrant>;
  /**
   * A member's report to the tuner of the learned budget `key` (`tuner-lua.ts`): adds `counts`,
   * takes or renews the owner's lease (`leaseMs`) unless another tuner holds it; `start`: the
   * rate while the fleet has none; `release`: this tuner leaves (and frees the lease).
   */
  tune(key: string, tunerId: string, counts: TunerCounts, start: SharedRate, leaseMs: number, release: boolean): Promise<TuneAnswer>;
  /** The owner's new rate for `key`; false (nothing written) when the lease is no longer `tunerId`'s. */
  publishRate(key: string, tunerId: string, rate: SharedRate): Promise<boolean>;
  /**
   * Adds `credits` (0: only reads) to the month's credit spend `key` (`<plan hash>:<YYYY-MM>`,
   * kept a few days past its month); resolves with the fleet's totals around the addition.
   */
  spend(key: string, credits: number): Promise<SpendTotals>;
  /** Renews this member's heartbeat for `ttlMs`; resolves with the number of live members. */
  heartbeat(memberId: string, ttlMs: number): Promise<number>;
  /** Stores the fact (the later end wins) and appends it to the fleet's log. */
  share(memberId: string, fact: FleetFact): Promise<void>;
  /** Facts appended after `cursor` (`''`: start from now), aged by the store's clock. */
  poll(cursor: string): Promise<{ readonly cursor: string; readonly facts: readonly ReceivedFact[] }>;
  /** The stored facts still holding for these keys. */
  recall(keys: readonly { readonly topic: string; readonly key: string }[]): Promise<readonly FleetFact[]>;
  /** A shared read's text, or who fetches it (`read-lua.ts`); `claimMs`: how long a claim taken now holds (0: only look). */
  readOrClaim(key: string, memberId: string, claimMs: number): Promise<StoredRead>;
  /** Stores a final read's text for `ttlMs` and frees this member's claim on it. */
  publishRead(key: string, memberId: string, text: string, ttlMs: number): Promise<void>;
  /** Frees this member's claim without a text: for `passMs`, readers ask their nodes at once. */
  releaseRead(key: string, memberId: string, passMs: number): Promise<void>;
  /** Removes this member's heartbeat. */
  leave(memberId: string): Promise<void>;
}
