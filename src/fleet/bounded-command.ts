/**
 * One store command under `commandTimeoutMs`. A deadline that passes is judged only after one
 * more turn of the event loop: when the loop was busy (a CPU-bound caller), the answer may
 * already sit in the socket, read in the same turn that fires the late timer — the store was
 * fast, the process was not, and the store must be judged by its own latency.
 */
import { setBackgroundTimer, type Clock } from '../clock.js';
import { failureOf, type FleetFailure } from './store-judge.js';

export interface BoundedCommandHandlers<T> {
  /** Answered in time. */
  answered(value: T): void;
  /** Rejected, or not answered in time. */
  failed(failure: FleetFailure): void;
  /** Answered after its deadline had passed (the caller already has `undefined`). */
  late?(value: T): void;
  /** The command ended, either way (also when it was answered late). */
  settled?(): void;
}

/** Resolves with the answer, or `undefined` when the command failed or timed out. */
export function runBounded<T>(clock: Clock, timeoutMs: number, run: () => Promise<T>, on: BoundedCommandHandlers<T>): Promise<T | undefined> {
  return new Promise<T | undefined>((resolve) => {
    let done = false;
    const fail = (failure: FleetFailure) => {
      done = true;
      on.failed(failure);
      resolve(undefined);
    };
    let timer = setBackgroundTimer(clock, () => {
      if (done) return;
      // One more turn: an answer read in this turn's I/O phase is still in time.
      timer = setBackgroundTimer(clock, () => {
        if (!done) fail('timeout');
      }, 0);
    }, timeoutMs);
    let promise: Promise<T>;
    try {
      promise = run();
    } catch (error) {
      promise = Promise.reject(error);
    }
    promise.then(
      (value) => {
        on.settled?.();
        if (done) {
          on.late?.(value);
          return;
        }
        done = true;
        timer.cancel();
        on.answered(value);
        resolve(value);
      },
      (error: unknown) => {
        on.settled?.();
        if (done) return;
        timer.cancel();
        fail(failureOf(error));
      },
    );
  });
}
