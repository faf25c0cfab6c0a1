/**
 * Time and randomness, injected everywhere. This is the only module that touches the
 * real timers, `performance.now()`, `Date.now()` and `Math.random()`; tests pass
 * `createFakeClock()` from `sturdy-rpc/testing` and a seeded {@link Random}.
 */

/** A scheduled callback; `cancel()` is idempotent. */
export interface TimerHandle {
  cancel(): void;
  /**
   * Whether the pending timer keeps the process alive (Node `ref()`/`unref()`). Optional: a
   * clock whose timers never hold a process (a fake clock) leaves it out.
   */
  hold?(held: boolean): void;
}

export interface Clock {
  /** Monotonic milliseconds (fractional allowed). Only differences are meaningful. */
  now(): number;
  /** Wall-clock milliseconds since the epoch, used only to read HTTP-dates (`Retry-After`) and to tell a credit plan's calendar month. */
  wallNow(): number;
  /**
   * Runs `callback` once after `delayMs` (clamped to ≥ 0). `options.unref`: background work
   * (probes) whose timer must not keep the process alive on its own.
   */
  setTimer(callback: () => void, delayMs: number, options?: TimerOptions): TimerHandle;
}

/** Options of {@link Clock.setTimer}. */
export interface TimerOptions {
  /** Let the process exit while this timer is pending (Node `timer.unref()`). @default false */
  readonly unref?: boolean;
}

/** Uniform in [0, 1). */
export type Random = () => number;

const noopHandle: TimerHandle = { cancel() {} };
/** Largest delay `setTimeout` honours. */
const MAX_TIMER_DELAY_MS = 2_147_483_647;

export const systemClock: Clock = {
  now: () => performance.now(),
  wallNow: () => Date.now(),
  setTimer(callback, delayMs, options) {
    // Not unref'd by default: every timer of a call belongs to a call someone awaits (a
    // deadline, a backoff, a wake-up); an unref'd one would let a script exit silently in the
    // middle of that call. Background work (probes) asks for `unref`.
    // Node fires any delay above 2^31 − 1 ms after 1 ms, so long waits are re-armed in steps.
    const dueAt = performance.now() + Math.max(0, delayMs);
    let timer: ReturnType<typeof setTimeout> & { ref?: () => void; unref?: () => void };
    let held = options?.unref !== true;
    const arm = (ms: number) => {
      timer = setTimeout(() => {
        const left = dueAt - performance.now();
        if (left > 1) arm(left);
        else callback();
      }, Math.min(Math.max(0, ms), MAX_TIMER_DELAY_MS));
      if (!held) timer.unref?.();
    };
    arm(delayMs);
    let done = false;
    return {
      cancel() {
        if (done) return;
        done = true;
        clearTimeout(timer);
      },
      hold(keep) {
        // Browsers' timers never hold anything: no ref/unref there.
        held = keep;
        if (keep) timer.ref?.();
        else timer.unref?.();
      },
    };
  },
};

export const systemRandom: Random = () => Math.random();

/**
 * A small, fast seeded generator (mulberry32) for reproducible runs (`--seed`, tests).
 */
export function createSeededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Resolves after `delayMs` on `clock`, or rejects with the signal's reason when aborted. */
export function sleep(clock: Clock, delayMs: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    let timer: TimerHandle = noopHandle;
    const onAbort = () => {
      timer.cancel();
      reject(signal?.reason);
    };
    timer = clock.setTimer(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, delayMs);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** An entry of a {@link TimerQueue}: due at `dueMs` on the queue's clock. */
export interface QueuedTimer {
  dueMs: number;
  fire(): void;
}

/**
 * Many timers that almost never fire (one per attempt in flight) over a single clock
 * timer, armed for the earliest entry. Adding an entry due after the armed instant and
 * removing any entry cost a Set operation, where a timer per attempt costs a
 * `setTimeout`/`clearTimeout` pair and five allocations. When the armed entry is removed,
 * the clock timer stays armed: it fires at that stale instant, finds nothing due and
 * re-arms for the earliest live entry. When the queue empties, the clock timer is let go
 * of rather than cancelled (it no longer keeps the process alive, and fires once for
 * nothing), so a caller making one call at a time does not pay a `setTimeout` and a
 * `clearTimeout` per call; a clock whose timers cannot be let go of (no `hold`) cancels it,
 * and `close()` cancels it in every case: an idle pool holds no timer that keeps it alive.
 */
export class TimerQueue {
  readonly #clock: Clock;
  readonly #entries = new Set<QueuedTimer>();
  #armed: TimerHandle | undefined;
  #armedAtMs = Number.POSITIVE_INFINITY;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Schedules `entry` to fire `delayMs` from now (once; `remove` before that cancels it). */
  add(entry: QueuedTimer, delayMs: number): void {
    this.addAt(entry, this.#clock.now() + Math.max(0, delayMs));
  }

  /** Schedules `entry` at `dueMs` on the queue's clock, for a caller that read the clock already (one read per call, not one per timer). */
  addAt(entry: QueuedTimer, dueMs: number): void {
    entry.dueMs = dueMs;
    // Held again: a live entry's timer keeps the process alive, as any timer of a call does.
    if (this.#entries.size === 0) this.#armed?.hold?.(true);
    this.#entries.add(entry);
    if (entry.dueMs < this.#armedAtMs) this.#arm(entry.dueMs);
  }

  remove(entry: QueuedTimer): void {
    if (this.#entries.delete(entry) && this.#entries.size === 0) this.#idle();
  }

  /** Cancels the clock timer (pool.close()); entries added later arm a new one. */
  close(): void {
    this.#entries.clear();
    this.#cancel();
  }

  #idle(): void {
    const armed = this.#armed;
    if (armed?.hold === undefined) this.#cancel();
    else armed.hold(false);
  }

  #cancel(): void {
    this.#armed?.cancel();
    this.#armed = undefined;
    this.#armedAtMs = Number.POSITIVE_INFINITY;
  }

  #arm(atMs: number): void {
    this.#armed?.cancel();
    this.#armedAtMs = atMs;
    this.#armed = this.#clock.setTimer(() => this.#fire(), atMs - this.#clock.now());
  }

  #fire(): void {
    this.#armed = undefined;
    this.#armedAtMs = Number.POSITIVE_INFINITY;
    const now = this.#clock.now();
    let next = Number.POSITIVE_INFINITY;
    for (const entry of [...this.#entries]) {
      if (entry.dueMs <= now) {
        this.#entries.delete(entry);
        entry.fire();
      } else if (entry.dueMs < next) {
        next = entry.dueMs;
      }
    }
    // A callback may have added an earlier entry (and armed for it) or emptied the queue.
    if (this.#entries.size > 0 && next < this.#armedAtMs) this.#arm(next);
  }
}

/**
 * A timer for background work (heartbeats, lease refills, polls): on the system clock it is
 * unref'd, so it never keeps the process alive on its own; on any other clock (a fake clock
 * in tests) it is the clock's own `setTimer`. The owner cancels it on close.
 */
export function setBackgroundTimer(clock: Clock, callback: () => void, delayMs: number): TimerHandle {
  if (clock !== systemClock) return clock.setTimer(callback, delayMs);
  const timer = setTimeout(callback, Math.min(Math.max(0, delayMs), MAX_TIMER_DELAY_MS));
  timer.unref();
  return { cancel: () => clearTimeout(timer) };
}
