/**
 * A tally's series found by their label values without building a key string: one map level
 * per label. The call hook's counters look one up per attempt and per call; joining the
 * values into a fresh string (then hashing it) cost more than the lookups themselves.
 */
import type { CounterSeries, CounterTally } from './tally.js';
import { keyOf } from './tally.js';

type Level = Map<string, Level | CounterSeries>;

export class SeriesIndex {
  readonly #root: Level = new Map();
  readonly #tally: CounterTally;

  constructor(tally: CounterTally) {
    this.#tally = tally;
  }

  /** The series of `a, b, c[, d]` (created at 0 in the tally when new). */
  at(a: string, b: string, c: string, d?: string): CounterSeries {
    const inner = this.#level(this.#level(this.#root, a), b);
    if (d === undefined) return (inner.get(c) as CounterSeries | undefined) ?? this.#create(inner, c, [a, b, c]);
    const last = this.#level(inner, c);
    return (last.get(d) as CounterSeries | undefined) ?? this.#create(last, d, [a, b, c, d]);
  }

  #level(level: Level, value: string): Level {
    let next = level.get(value) as Level | undefined;
    if (next === undefined) level.set(value, (next = new Map()));
    return next;
  }

  #create(level: Level, value: string, values: readonly string[]): CounterSeries {
    const series = this.#tally.at(keyOf(values), values);
    level.set(value, series);
    return series;
  }
}
