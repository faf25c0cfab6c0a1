import { describe, expect, it } from 'vitest';
import { TimerQueue, type Clock, type QueuedTimer } from '../../src/clock.js';
import { createFakeClock } from '../../src/testing/fake-clock.js';

/** An entry that logs the instant it fired. */
function entry(log: string[], name: string, clock: { now(): number }): QueuedTimer {
  return {
    dueMs: 0,
    fire() {
      log.push(`${name}@${clock.now()}`);
    },
  };
}

describe('TimerQueue', () => {
  it('fires every entry at its own due instant with one clock timer armed', async () => {
    const clock = createFakeClock();
    const queue = new TimerQueue(clock);
    const log: string[] = [];
    queue.add(entry(log, 'a', clock), 100);
    queue.add(entry(log, 'b', clock), 300);
    queue.add(entry(log, 'c', clock), 200);
    expect(clock.pendingTimers).toBe(1);
    await clock.advance(1_000);
    expect(log).toEqual(['a@100', 'c@200', 'b@300']);
    expect(clock.pendingTimers).toBe(0);
  });

  it('re-arms for an entry due before the armed one', async () => {
    const clock = createFakeClock();
    const queue = new TimerQueue(clock);
    const log: string[] = [];
    queue.add(entry(log, 'late', clock), 500);
    queue.add(entry(log, 'early', clock), 50);
    expect(clock.pendingTimers).toBe(1);
    await clock.advance(1_000);
    expect(log).toEqual(['early@50', 'late@500']);
  });

  it('never fires a removed entry, even the armed one, and still fires the others on time', async () => {
    const clock = createFakeClock();
    const queue = new TimerQueue(clock);
    const log: string[] = [];
    const first = entry(log, 'first', clock);
    queue.add(first, 100);
    queue.add(entry(log, 'second', clock), 250);
    queue.remove(first);
    queue.remove(first); // idempotent
    await clock.advance(1_000);
    expect(log).toEqual(['second@250']);
  });

  it('holds no clock timer once empty, so an idle pool keeps nothing alive', async () => {
    const clock = createFakeClock();
    const queue = new TimerQueue(clock);
    const log: string[] = [];
    const a = entry(log, 'a', clock);
    const b = entry(log, 'b', clock);
    queue.add(a, 10_000);
    queue.add(b, 10_000);
    queue.remove(a);
    expect(clock.pendingTimers).toBe(1);
    queue.remove(b);
    expect(clock.pendingTimers).toBe(0);
    await clock.advance(20_000);
    expect(log).toEqual([]);
  });

  it('fires entries added by a firing callback, including ones already due', async () => {
    const clock = createFakeClock();
    const queue = new TimerQueue(clock);
    const log: string[] = [];
    const chained = entry(log, 'chained', clock);
    const immediate = entry(log, 'immediate', clock);
    queue.add(
      {
        dueMs: 0,
        fire() {
          log.push(`parent@${clock.now()}`);
          queue.add(chained, 40);
          queue.add(immediate, 0);
        },
      },
      100,
    );
    queue.add(entry(log, 'other', clock), 500);
    await clock.advance(1_000);
    expect(log).toEqual(['parent@100', 'immediate@100', 'chained@140', 'other@500']);
    expect(clock.pendingTimers).toBe(0);
  });

  it('on a clock that can let a timer go, one call at a time arms one timer in all, held only while an entry is live', async () => {
    const fake = createFakeClock();
    // The fake clock's timers, with the system clock's `hold` (ref/unref) recorded.
    const holds: boolean[] = [];
    let armed = 0;
    const clock: Clock = {
      now: () => fake.now(),
      wallNow: () => fake.wallNow(),
      setTimer: (callback, delayMs) => {
        armed++;
        const handle = fake.setTimer(callback, delayMs);
        return { cancel: () => handle.cancel(), hold: (held) => holds.push(held) };
      },
    };
    const queue = new TimerQueue(clock);
    const log: string[] = [];
    for (let i = 0; i < 5; i++) {
      const call = entry(log, `call${i}`, clock);
      queue.add(call, 10_000);
      await fake.advance(10);
      queue.remove(call);
    }
    expect(armed).toBe(1);
    // Let go of when empty, held again by the next entry: never holding the process while idle.
    expect(holds).toEqual([false, true, false, true, false, true, false, true, false]);
    // The idle timer fires once for nothing; a later entry arms a new one and fires on time.
    await fake.advance(10_000);
    expect(log).toEqual([]);
    queue.add(entry(log, 'late', clock), 100);
    await fake.advance(100);
    expect(log).toEqual([`late@${fake.now()}`]);
    expect(armed).toBe(2);
    queue.add(entry(log, 'closed', clock), 100);
    queue.close();
    expect(fake.pendingTimers).toBe(0);
  });
});
