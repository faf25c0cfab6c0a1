/**
 * The waits of a placement loop, each cut short when its subscription closes (the caller's
 * deadline, signal, `close()` or `pool.close()`): a subscribe call settles when the caller
 * said, never when a socket or a node gets round to answering.
 */
import type { QueuedTimer, TimerQueue } from '../clock.js';
import type { ManagedSubscription } from './subscription.js';

/** What {@link unlessClosed} resolves with when the subscription closed first. */
export const CLOSED: unique symbol = Symbol('closed');

/** `work`'s value, or {@link CLOSED} once `sub` closes first (then a later rejection of `work` is swallowed: the caller handles what it still needs). */
export function unlessClosed<T>(sub: ManagedSubscription, work: Promise<T>): Promise<T | typeof CLOSED> {
  if (sub.state === 'closed') {
    work.catch(() => undefined);
    return Promise.resolve(CLOSED);
  }
  return new Promise((resolve, reject) => {
    const off = sub.onClosed(() => {
      work.catch(() => undefined);
      resolve(CLOSED);
    });
    work.then(
      (value) => {
        off();
        resolve(value);
      },
      (error: unknown) => {
        off();
        reject(error instanceof Error ? error : new Error('request failed'));
      },
    );
  });
}

/** Sleeps `delayMs` on `timers`; ends at once when `sub` closes (or is no longer being placed). */
export function sleepWhilePlacing(timers: TimerQueue, sub: ManagedSubscription, delayMs: number): Promise<void> {
  if (sub.state !== 'placing') return Promise.resolve();
  return new Promise((resolve) => {
    const entry: QueuedTimer = {
      dueMs: 0,
      fire: () => {
        sub.wake = undefined;
        resolve();
      },
    };
    sub.wake = () => {
      sub.wake = undefined;
      timers.remove(entry);
      resolve();
    };
    timers.add(entry, delayMs);
  });
}
