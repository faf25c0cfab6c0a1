import type { FakeClock } from '../../src/testing/index.js';
import type { Subscription, SubscriptionItem } from '../../src/subscriptions/types.js';

/**
 * Reads a subscription while a fake clock drives time: each step gives socket I/O up to
 * `ioMs` of real time to deliver, then advances `stepMs`. No timing logic rides on real
 * time: items carry the pool clock's `atMs`. Stops when `stop` says so (or the iterator
 * ends); throws after `maxSteps`.
 */
export async function drive(
  clock: FakeClock,
  sub: Subscription,
  stop: (items: readonly SubscriptionItem[]) => boolean,
  { stepMs = 100, maxSteps = 200, ioMs = 30 } = {},
): Promise<SubscriptionItem[]> {
  const items: SubscriptionItem[] = [];
  let result: IteratorResult<SubscriptionItem, undefined> | undefined;
  let failure: unknown;
  const ask = () => {
    result = undefined;
    sub.next().then(
      (r) => {
        result = r;
      },
      (error: unknown) => {
        failure = error ?? new Error('next() rejected');
      },
    );
  };
  ask();
  for (let step = 0; step <= maxSteps; step++) {
    const deadline = performance.now() + ioMs;
    while (performance.now() < deadline) {
      await new Promise((resolve) => setImmediate(resolve));
      if (failure !== undefined) throw failure;
      if (result === undefined) continue;
      if (result.done) return items;
      items.push(result.value);
      if (stop(items)) return items;
      ask();
    }
    if (step < maxSteps) await clock.advance(stepMs);
  }
  throw new Error(`drive: stopped after ${maxSteps} steps with ${items.length} items`);
}

/**
 * Advances `clock` by `totalMs` in steps of `stepMs`, giving socket I/O up to `ioMs` of real
 * time after each step (no timing logic rides on it: every instant is the fake clock's).
 * Stops early once `done` holds; `each` runs after every step with the clock's time.
 */
export async function advanceWithIo(
  clock: FakeClock,
  totalMs: number,
  { stepMs = 50, ioMs = 10, done, each }: { stepMs?: number; ioMs?: number; done?: () => boolean; each?: (nowMs: number) => void } = {},
): Promise<void> {
  await io(ioMs);
  for (let elapsed = 0; elapsed < totalMs && done?.() !== true; elapsed += stepMs) {
    await clock.advance(Math.min(stepMs, totalMs - elapsed));
    await io(ioMs);
    each?.(clock.now());
  }
}

/** Lets socket I/O run for up to `ms` of real time. */
export async function io(ms: number): Promise<void> {
  const deadline = performance.now() + ms;
  do await new Promise((resolve) => setImmediate(resolve));
  while (performance.now() < deadline);
}
