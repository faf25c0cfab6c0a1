import type { Clock, TimerHandle } from '../clock.js';

export interface FakeClock extends Clock {
  /**
   * Moves time forward by `ms`, running every timer that falls due in order of its due
   * time (ties in order of creation), and lets promise callbacks settle between timers,
   * so code awaiting a timer observes the exact instant it fired.
   */
  advance(ms: number): Promise<void>;
  /** Advances to the next due timer, if any; returns whether one ran. */
  runNext(): Promise<boolean>;
  /** Lets pending promise callbacks and I/O callbacks run without moving time. */
  flush(): Promise<void>;
  /** Number of timers scheduled and not yet fired or cancelled. */
  readonly pendingTimers: number;
}

export interface CreateFakeClockOptions {
  /** Initial monotonic time in ms. @default 0 */
  startMs?: number;
  /** Wall-clock time (epoch ms) at `startMs`, used for HTTP-dates. @default 1_700_000_000_000 */
  wallStartMs?: number;
}

interface FakeTimer {
  at: number;
  seq: number;
  callback: () => void;
  active: boolean;
}

/**
 * A deterministic {@link Clock} for tests: time moves only when you call `advance()`.
 *
 * ```ts
 * const clock = createFakeClock();
 * const pool = new HttpTransportPool({ endpoints, clock });
 * const pending = pool.acquireForRequestKind('read', { timeoutMs: 500 });
 * await clock.advance(500); // the acquire rejects with DEADLINE_EXCEEDED exactly now
 * ```
 */
export function createFakeClock(options: CreateFakeClockOptions = {}): FakeClock {
  const start = options.startMs ?? 0;
  const wallStart = options.wallStartMs ?? 1_700_000_000_000;
  let now = start;
  let seq = 0;
  let timers: FakeTimer[] = [];

  const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

  const takeNextDue = (limit: number): FakeTimer | undefined => {
    let best: FakeTimer | undefined;
    for (const timer of timers) {
      if (!timer.active || timer.at > limit) continue;
      if (!best || timer.at < best.at || (timer.at === best.at && timer.seq < best.seq)) best = timer;
    }
    if (best) {
      best.active = false;
      timers = timers.filter((t) => t.active);
    }
    return best;
  };

  const clock: FakeClock = {
    now: () => now,
    wallNow: () => wallStart + (now - start),
    setTimer(callback, delayMs): TimerHandle {
      const timer: FakeTimer = { at: now + Math.max(0, delayMs), seq: seq++, callback, active: true };
      timers.push(timer);
      return {
        cancel() {
          if (!timer.active) return;
          timer.active = false;
          timers = timers.filter((t) => t.active);
        },
      };
    },
    async advance(ms) {
      if (!(ms >= 0)) throw new RangeError('advance(ms) needs a non-negative number');
      const target = now + ms;
      await flush();
      for (let timer = takeNextDue(target); timer; timer = takeNextDue(target)) {
        now = Math.max(now, timer.at);
        timer.callback();
        await flush();
      }
      now = target;
      await flush();
    },
    async runNext() {
      const timer = takeNextDue(Number.POSITIVE_INFINITY);
      if (!timer) return false;
      now = Math.max(now, timer.at);
      timer.callback();
      await flush();
      return true;
    },
    flush,
    get pendingTimers() {
      return timers.length;
    },
  };
  return clock;
}
