/**
 * Host circuit breaker: one per key (host and port, or the endpoint's `operator`: see
 * `config/breaker-key.ts`), over aligned tumbling windows.
 * It opens when a window holds at least `minFailures` failures at a failure rate of at
 * least `failureRate` (`failureRate + hysteresis` for a host readmitted less than
 * `memoryMs` ago), for 1, 2, 4, 8, 16, then 30 min on repeats within `memoryMs`.
 *
 * Callers report every success (hedges included) and only breaker-relevant failures: the
 * classifier already leaves out 4xx, capability limits and cancellations. Keys are compared
 * exactly: pass `breakerKeyOf(url, operator)`. Hosts may carry API keys, so nothing returned
 * here names the key.
 */
import { filterWithCollapseGuard } from './collapse-guard.js';
import { ENGLISH_MESSAGES } from '../config/english-messages.js';
import { hostBreakerConfigSchema, type HostBreakerConfig, type HostBreakerOptions } from './config.js';

export type HostBreakerChange =
  | {
      readonly type: 'open';
      readonly untilMs: number;
      readonly durationMs: number;
      /** 1 for a first open; +1 per repeat within `memoryMs` of the previous open's end. */
      readonly openCount: number;
      readonly failures: number;
      readonly failureRate: number;
    }
  | {
      readonly type: 'close';
      /** When the open ended (≤ the `nowMs` at which it was noticed). */
      readonly atMs: number;
    };

export interface HostBreakerView {
  readonly open: boolean;
  readonly openRemainingMs: number;
  /** Escalation level of the last open (0 if never opened or forgotten after `memoryMs`). */
  readonly openCount: number;
  /** Outcomes in the current window (0 while open: outcomes during an open are not counted). */
  readonly windowFailures: number;
  readonly windowSuccesses: number;
  /** Failure rate the current window must reach to open the breaker. */
  readonly threshold: number;
}

export interface CreateHostBreakerOptions {
  /** Breaker settings; validated and defaulted with `hostBreakerConfigSchema`. @default {} */
  readonly config?: HostBreakerOptions;
}

export interface HostBreaker {
  readonly config: HostBreakerConfig;
  recordSuccess(host: string, nowMs: number): readonly HostBreakerChange[];
  recordFailure(host: string, nowMs: number): readonly HostBreakerChange[];
  /** Reports a `close` due to time alone — call it when an open's `untilMs` timer fires. */
  settle(host: string, nowMs: number): readonly HostBreakerChange[];
  /** Ends a running open now (health probes proved the host answers); the escalation memory stays. */
  reset(host: string, nowMs: number): readonly HostBreakerChange[];
  /**
   * Opens the host until `untilMs` because another process of a fleet opened it (escalation
   * level `openCount`). Only ever lengthens an open; reports `open` when the host was closed.
   */
  adoptOpen(host: string, untilMs: number, openCount: number, nowMs: number): readonly HostBreakerChange[];
  isOpen(host: string, nowMs: number): boolean;
  /** End of the running open, or `undefined` when closed (the pool waits for the earliest). */
  openUntil(host: string, nowMs: number): number | undefined;
  view(host: string, nowMs: number): HostBreakerView;
  /** Drops candidates on open hosts, unless that drops all: then returns `candidates` unchanged. */
  filterOpen<T>(candidates: readonly T[], hostOf: (candidate: T) => string, nowMs: number): readonly T[];
}

interface HostState {
  windowIndex: number;
  failures: number;
  successes: number;
  /** End of the current or last open; `null` if never opened. */
  openUntilMs: number | null;
  openCount: number;
  reportedOpen: boolean;
}

const NO_CHANGES: readonly HostBreakerChange[] = Object.freeze([]);
/** Rates are compared with a little slack so 0.2 + 0.15 still accepts exactly 7 of 20. */
const RATE_EPSILON = 1e-9;

export function createHostBreaker(options: CreateHostBreakerOptions = {}): HostBreaker {
  const config = hostBreakerConfigSchema.parse(options.config ?? {}, ENGLISH_MESSAGES);
  const hosts = new Map<string, HostState>();

  /** Latest end of any open so far: when `nowMs` is past it, no host is open (O(1) fast path). */
  let latestOpenUntilMs = -Infinity;

  const stateOf = (host: string): HostState => {
    let s = hosts.get(host);
    if (s === undefined) {
      s = { windowIndex: -Infinity, failures: 0, successes: 0, openUntilMs: null, openCount: 0, reportedOpen: false };
      hosts.set(host, s);
    }
    return s;
  };
  const peek = (host: string) => hosts.get(host);

  const isOpenState = (s: HostState | undefined, nowMs: number) =>
    s !== undefined && s.openUntilMs !== null && nowMs < s.openUntilMs;

  const remembered = (s: HostState, nowMs: number) => s.openUntilMs !== null && nowMs - s.openUntilMs < config.memoryMs;

  const thresholdOf = (s: HostState | undefined, nowMs: number) =>
    s !== undefined && !isOpenState(s, nowMs) && remembered(s, nowMs)
      ? config.failureRate + config.hysteresis
      : config.failureRate;

  const windowIndexAt = (nowMs: number) => Math.floor(nowMs / config.windowMs);

  /** Reports a close once the open has expired. */
  const advance = (s: HostState, nowMs: number, changes: HostBreakerChange[]) => {
    if (s.reportedOpen && s.openUntilMs !== null && nowMs >= s.openUntilMs) {
      s.reportedOpen = false;
      changes.push({ type: 'close', atMs: s.openUntilMs });
    }
  };

  const roll = (s: HostState, nowMs: number) => {
    const index = windowIndexAt(nowMs);
    if (index !== s.windowIndex) {
      s.windowIndex = index;
      s.failures = 0;
      s.successes = 0;
    }
  };

  const record = (host: string, failed: boolean, nowMs: number): readonly HostBreakerChange[] => {
    const s = stateOf(host);
    const changes: HostBreakerChange[] = [];
    advance(s, nowMs, changes);
    // While open, outcomes (from traffic let through because no other host was left) are
    // not counted: the window after readmission starts clean.
    if (isOpenState(s, nowMs)) return changes.length === 0 ? NO_CHANGES : changes;
    roll(s, nowMs);
    if (!failed) {
      s.successes++;
      return changes.length === 0 ? NO_CHANGES : changes;
    }
    s.failures++;
    const failureRate = s.failures / (s.failures + s.successes);
    if (s.failures >= config.minFailures && failureRate >= thresholdOf(s, nowMs) - RATE_EPSILON) {
      const openCount = remembered(s, nowMs) ? s.openCount + 1 : 1;
      const durationMs = Math.min(config.baseOpenMs * 2 ** Math.min(openCount - 1, 52), config.maxOpenMs);
      const failures = s.failures;
      s.openUntilMs = nowMs + durationMs;
      if (s.openUntilMs > latestOpenUntilMs) latestOpenUntilMs = s.openUntilMs;
      s.openCount = openCount;
      s.reportedOpen = true;
      s.failures = 0;
      s.successes = 0;
      changes.push({ type: 'open', untilMs: s.openUntilMs, durationMs, openCount, failures, failureRate });
    }
    return changes.length === 0 ? NO_CHANGES : changes;
  };

  return {
    config,
    recordSuccess: (host, nowMs) => record(host, false, nowMs),
    recordFailure: (host, nowMs) => record(host, true, nowMs),
    settle: (host, nowMs) => {
      const s = peek(host);
      if (s === undefined) return NO_CHANGES;
      const changes: HostBreakerChange[] = [];
      advance(s, nowMs, changes);
      return changes.length === 0 ? NO_CHANGES : changes;
    },
    reset: (host, nowMs) => {
      const s = peek(host);
      if (s === undefined || !isOpenState(s, nowMs)) return NO_CHANGES;
      s.openUntilMs = nowMs;
      s.windowIndex = -Infinity;
      const changes: HostBreakerChange[] = [];
      advance(s, nowMs, changes);
      return changes.length === 0 ? NO_CHANGES : changes;
    },
    adoptOpen: (host, untilMs, openCount, nowMs) => {
      const s = stateOf(host);
      const changes: HostBreakerChange[] = [];
      advance(s, nowMs, changes);
      if (untilMs <= nowMs || (s.openUntilMs !== null && s.openUntilMs >= untilMs)) return changes.length === 0 ? NO_CHANGES : changes;
      const wasOpen = isOpenState(s, nowMs);
      s.openUntilMs = untilMs;
      if (untilMs > latestOpenUntilMs) latestOpenUntilMs = untilMs;
      s.openCount = Math.max(s.openCount, openCount);
      s.reportedOpen = true;
      s.failures = 0;
      s.successes = 0;
      if (!wasOpen) changes.push({ type: 'open', untilMs, durationMs: untilMs - nowMs, openCount: s.openCount, failures: 0, failureRate: 0 });
      return changes.length === 0 ? NO_CHANGES : changes;
    },
    isOpen: (host, nowMs) => isOpenState(peek(host), nowMs),
    openUntil: (host, nowMs) => {
      const until = peek(host)?.openUntilMs;
      return until != null && nowMs < until ? until : undefined;
    },
    view: (host, nowMs) => {
      const s = peek(host);
      const until = s?.openUntilMs;
      const open = until != null && nowMs < until;
      const current = s !== undefined && !open && s.windowIndex === windowIndexAt(nowMs);
      return {
        open,
        openRemainingMs: open ? until - nowMs : 0,
        openCount: s !== undefined && (open || remembered(s, nowMs)) ? s.openCount : 0,
        windowFailures: current ? s.failures : 0,
        windowSuccesses: current ? s.successes : 0,
        threshold: thresholdOf(s, nowMs),
      };
    },
    filterOpen: (candidates, hostOf, nowMs) => {
      if (nowMs >= latestOpenUntilMs) return candidates;
      const kept = filterWithCollapseGuard(candidates, (c) => !isOpenState(peek(hostOf(c)), nowMs), () => 0);
      // Every host open: the guard kept all of them (equal scores); hand back the original.
      return kept.length === candidates.length ? candidates : kept;
    },
  };
}
