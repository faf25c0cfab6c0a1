import { describe, expect, it } from 'vitest';
import { createHostBreaker, type HostBreaker } from '../../src/reputation/host-breaker.js';
import { HOUR, MIN } from './helpers.js';

const HOST = 'rpc.provider.example';

/** Reports `successes` then `failures` at `nowMs`; returns every change. */
function outcomes(b: HostBreaker, nowMs: number, successes: number, failures: number, host = HOST) {
  const changes = [];
  for (let i = 0; i < successes; i++) changes.push(...b.recordSuccess(host, nowMs));
  for (let i = 0; i < failures; i++) changes.push(...b.recordFailure(host, nowMs));
  return changes;
}

/** Only the `open` changes among `outcomes`. */
function opens(b: HostBreaker, nowMs: number, successes: number, failures: number) {
  return outcomes(b, nowMs, successes, failures).filter((c) => c.type === 'open');
}

/** Breaks the host with an unmistakable 100% failure burst; returns the open. */
function breakNow(b: HostBreaker, nowMs: number) {
  const [open] = outcomes(b, nowMs, 0, 5).filter((c) => c.type === 'open');
  if (open?.type !== 'open') throw new Error('expected the breaker to open');
  return open;
}

describe('host circuit breaker', () => {
  it('opens at 5 failures and a 20% failure rate within one window', () => {
    const b = createHostBreaker();
    expect(outcomes(b, 1_000, 20, 4)).toEqual([]);
    expect(outcomes(b, 1_000, 0, 1)).toEqual([
      { type: 'open', untilMs: 1_000 + MIN, durationMs: MIN, openCount: 1, failures: 5, failureRate: 0.2 },
    ]);
    expect(b.isOpen(HOST, 1_000)).toBe(true);
    expect(b.openUntil(HOST, 1_000)).toBe(1_000 + MIN);
    expect(b.isOpen('other.example', 1_000)).toBe(false);
  });

  it('stays closed with 4 failures, even at a 100% failure rate', () => {
    const b = createHostBreaker();
    expect(outcomes(b, 0, 0, 4)).toEqual([]);
    expect(b.view(HOST, 0)).toMatchObject({ open: false, windowFailures: 4 });
  });

  it('stays closed at 19%', () => {
    const b = createHostBreaker();
    expect(outcomes(b, 0, 81, 19)).toEqual([]);
    expect(b.isOpen(HOST, 0)).toBe(false);
    // One more failure: 20 of 101 is still below 20%; 20 of 100 would not be.
    const c = createHostBreaker();
    expect(outcomes(c, 0, 80, 20)).toHaveLength(1);
  });

  it('counts in tumbling windows: failures either side of a window boundary do not add up', () => {
    const b = createHostBreaker();
    expect(outcomes(b, 29_999, 0, 4)).toEqual([]);
    expect(outcomes(b, 30_000, 0, 4)).toEqual([]); // a new window: 4, not 8
    expect(outcomes(b, 59_999, 0, 1)).toHaveLength(1); // same window as 30 000: 5
  });

  it('counts every success in the window against the failures', () => {
    const b = createHostBreaker();
    outcomes(b, 0, 100, 0);
    expect(outcomes(b, 10_000, 0, 20)).toEqual([]); // 20 / 120 < 20%
    expect(outcomes(b, 10_000, 0, 5)).toHaveLength(1); // 25 / 125 = 20%
  });

  it('escalates 1, 2, 4, 8, 16, 30 min on repeats within the hour, then starts over', () => {
    const b = createHostBreaker();
    let now = 0;
    const minutes: number[] = [];
    for (let i = 0; i < 7; i++) {
      const open = breakNow(b, now);
      minutes.push(open.durationMs / MIN);
      expect(open.openCount).toBe(i + 1);
      now = open.untilMs; // fails again as soon as it is readmitted
    }
    expect(minutes).toEqual([1, 2, 4, 8, 16, 30, 30]);
    // 59 min after the last open ended: still a repeat.
    const c = createHostBreaker();
    const first = breakNow(c, 0);
    expect(breakNow(c, first.untilMs + 59 * MIN).durationMs).toBe(2 * MIN);
    // An hour after the last open ended: a first open again.
    expect(breakNow(b, now + HOUR)).toMatchObject({ durationMs: MIN, openCount: 1 });
  });

  it('needs a 35% rate to break again within the hour after readmission', () => {
    const b = createHostBreaker();
    const { untilMs } = breakNow(b, 0);
    expect(b.view(HOST, untilMs)).toMatchObject({ open: false, threshold: 0.35 });
    expect(opens(b, untilMs, 79, 21)).toEqual([]); // 21%
    expect(opens(b, untilMs + 30_000, 66, 34)).toEqual([]); // 34%, next window
    expect(opens(b, untilMs + 60_000, 5, 5)).toHaveLength(1); // 50%
    // Exactly 35% is enough (0.2 + 0.15 is not exactly 0.35 in binary floating point).
    const c = createHostBreaker();
    const first = breakNow(c, 0);
    expect(opens(c, first.untilMs, 13, 7)).toHaveLength(1);
  });

  it('applies the plain 20% threshold again an hour after readmission', () => {
    const b = createHostBreaker();
    const { untilMs } = breakNow(b, 0);
    const later = untilMs + HOUR;
    expect(b.view(HOST, later).threshold).toBe(0.2);
    const changes = opens(b, later, 79, 21);
    expect(changes).toEqual([expect.objectContaining({ type: 'open', durationMs: MIN, openCount: 1 })]);
  });

  it('ignores outcomes while open, reports the close, and readmits with a clean window', () => {
    const b = createHostBreaker();
    const { untilMs } = breakNow(b, 0);
    expect(outcomes(b, 1_000, 0, 50)).toEqual([]);
    expect(b.settle(HOST, untilMs - 1)).toEqual([]);
    expect(b.settle(HOST, untilMs)).toEqual([{ type: 'close', atMs: untilMs }]);
    expect(b.settle(HOST, untilMs)).toEqual([]);
    expect(b.view(HOST, untilMs)).toMatchObject({ open: false, windowFailures: 0, windowSuccesses: 0, openCount: 1 });
  });

  it('reports the close on the next outcome when nobody settled', () => {
    const b = createHostBreaker();
    const { untilMs } = breakNow(b, 0);
    expect(b.recordSuccess(HOST, untilMs + 5_000)).toEqual([{ type: 'close', atMs: untilMs }]);
  });

  it('skips candidates on open hosts unless none would be left', () => {
    const b = createHostBreaker();
    const candidates = [
      { id: 'a', host: HOST },
      { id: 'b', host: 'other.example' },
    ];
    const hostOf = (c: { host: string }) => c.host;
    expect(b.filterOpen(candidates, hostOf, 0)).toBe(candidates);
    breakNow(b, 0);
    expect(b.filterOpen(candidates, hostOf, 0).map((c) => c.id)).toEqual(['b']);
    const only = [candidates[0]!];
    expect(b.filterOpen(only, hostOf, 0)).toBe(only);
    expect(b.filterOpen(candidates, hostOf, MIN)).toBe(candidates);
  });

  it('keeps hosts apart', () => {
    const b = createHostBreaker();
    breakNow(b, 0);
    expect(outcomes(b, 0, 0, 4, 'other.example')).toEqual([]);
    expect(b.isOpen('other.example', 0)).toBe(false);
  });

  it('takes its thresholds from configuration', () => {
    const b = createHostBreaker({ config: { minFailures: 2, failureRate: 0.5, hysteresis: 0, baseOpenMs: 1_000 } });
    expect(outcomes(b, 0, 3, 2)).toEqual([]);
    expect(outcomes(b, 0, 0, 1)).toEqual([expect.objectContaining({ durationMs: 1_000 })]);
  });
});
