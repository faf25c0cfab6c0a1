/**
 * Counters and histograms as plain numbers: the hot path adds to a number found by one map
 * lookup; an exporter reads them when it is scraped. (prom-client's own children hash their
 * label object on every increment: ~0.5 µs each, several per call — more than the 5 % budget.)
 */

/** One series: its label values (in the metric's label order) and its numbers. */
export interface CounterSeries {
  readonly values: readonly string[];
  value: number;
}

export interface HistogramSeries {
  readonly values: readonly string[];
  /** Per bucket (not cumulative), then one for above the last bound. */
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

/** A labelled counter. `key` is the label values joined by `\0` (the caller builds it once). */
export class CounterTally {
  readonly series = new Map<string, CounterSeries>();

  /** The series for `values`, created at 0 when new. */
  at(key: string, values: readonly string[]): CounterSeries {
    let series = this.series.get(key);
    if (series === undefined) {
      series = { values, value: 0 };
      this.series.set(key, series);
    }
    return series;
  }

  /** `values` defaults to `[key]` (a one-label counter): no array per increment. */
  inc(key: string, values?: readonly string[]): void {
    (this.series.get(key) ?? this.at(key, values ?? [key])).value++;
  }
}

/** A labelled histogram over fixed bucket bounds (ascending, in the unit observed). */
export class HistogramTally {
  readonly series = new Map<string, HistogramSeries>();
  readonly bounds: readonly number[];

  constructor(bounds: readonly number[]) {
    this.bounds = [...bounds].sort((a, b) => a - b);
  }

  at(key: string, values: readonly string[]): HistogramSeries {
    let series = this.series.get(key);
    if (series === undefined) {
      series = { values, counts: new Float64Array(this.bounds.length + 1), sum: 0, count: 0 };
      this.series.set(key, series);
    }
    return series;
  }

  /** `values` defaults to `[key]` (a one-label histogram): no array per observation. */
  observe(key: string, value: number, values?: readonly string[]): void {
    const series = this.series.get(key) ?? this.at(key, values ?? [key]);
    const { bounds } = this;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    series.counts[i]!++;
    series.sum += value;
    series.count++;
  }
}

/** The key of a series: its label values joined by `\0` (no label value contains it). */
export function keyOf(values: readonly string[]): string {
  return values.join('\u0000');
}
