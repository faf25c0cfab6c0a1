/**
 * `sturdy-rpc/metrics/prometheus`: the pool's metrics in a prom-client registry (an optional
 * peer dependency: only this entry imports it). Counters and histograms are tallied as plain
 * numbers on the hot path (one map lookup and one addition per event) and handed to
 * prom-client when Prometheus scrapes; gauges are read from `pool.snapshot()` at scrape time.
 * Every label has a value set the configuration bounds (docs/observability.md "Monitoring" gives the formula).
 *
 * @module sturdy-rpc/metrics/prometheus
 */
import { Gauge, register as globalRegistry, type Metric, type MetricObjectWithValues, type MetricValue, type Registry } from 'prom-client';
import type { HttpTransportPool } from '../pool/http-transport-pool.js';
import { OBSERVE_CALLS } from '../pipeline/call-observer.js';
import { CallTallies, runOnce } from './call-tallies.js';
import { CALL_METRICS, DEFAULT_DURATION_BUCKETS } from './call-metrics.js';
import { EVENT_COUNTERS, SNAPSHOT_GAUGES, topologyOf } from './definitions.js';
import { CounterTally, HistogramTally } from './tally.js';

export interface PrometheusMetricsOptions {
  /** Where the metrics are registered. @default prom-client's global `register` */
  readonly registry?: Registry;
  /** Prefix of every metric name. @default 'sturdy_rpc_' */
  readonly prefix?: string;
  /** Buckets of the two duration histograms, in seconds. @default [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30] */
  readonly durationBuckets?: readonly number[];
}

/** Removes every metric this registration added and stops listening to the pool. Idempotent. */
export type UnregisterPrometheusMetrics = () => void;

const labelsOf = (names: readonly string[], values: readonly string[]) => Object.fromEntries(names.map((name, i) => [name, values[i]!]));

/** A tallied counter or histogram as prom-client sees a metric: it reads the numbers at scrape time. */
class TalliedMetric {
  readonly aggregator = 'sum';
  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
    readonly tally: CounterTally | HistogramTally,
  ) {}

  get type(): 'counter' | 'histogram' {
    return this.tally instanceof CounterTally ? 'counter' : 'histogram';
  }

  async get(): Promise<MetricObjectWithValues<MetricValue<string>>> {
    const { tally, labelNames, name } = this;
    const values: MetricValue<string>[] = [];
    if (tally instanceof CounterTally) {
      for (const series of tally.series.values()) values.push({ labels: labelsOf(labelNames, series.values), value: series.value });
    } else {
      for (const series of tally.series.values()) {
        const labels = labelsOf(labelNames, series.values);
        let cumulative = 0;
        tally.bounds.forEach((le, i) => {
          cumulative += series.counts[i]!;
          values.push({ metricName: `${name}_bucket`, labels: { ...labels, le }, value: cumulative } as MetricValue<string>);
        });
        values.push({ metricName: `${name}_bucket`, labels: { ...labels, le: '+Inf' }, value: series.count } as MetricValue<string>);
        values.push({ metricName: `${name}_sum`, labels, value: series.sum } as MetricValue<string>);
        values.push({ metricName: `${name}_count`, labels, value: series.count } as MetricValue<string>);
      }
    }
    return { name, help: this.help, type: this.type, aggregator: this.aggregator, values } as unknown as MetricObjectWithValues<MetricValue<string>>;
  }

  /** `registry.resetMetrics()`: every series back to 0 (the set stays: it is the configuration's). */
  reset(): void {
    for (const series of this.tally.series.values()) {
      if ('value' in series) series.value = 0;
      else {
        series.counts.fill(0);
        series.sum = 0;
        series.count = 0;
      }
    }
  }
}

/**
 * Registers the pool's metrics (docs/observability.md "Monitoring") and returns the function that removes
 * them. One pool per registry and prefix: a second registration with the same names throws
 * prom-client's "already registered" error and registers nothing.
 */
export function registerPrometheusMetrics(pool: HttpTransportPool, options: PrometheusMetricsOptions = {}): UnregisterPrometheusMetrics {
  const registry = options.registry ?? globalRegistry;
  const prefix = options.prefix ?? 'sturdy_rpc_';
  const buckets = options.durationBuckets ?? DEFAULT_DURATION_BUCKETS;
  const topology = topologyOf(pool.snapshot());
  const { calls, attempts, retries, callDuration, attemptDuration } = CALL_METRICS;
  const talliedNames = [...EVENT_COUNTERS.map((d) => d.name), calls.name, attempts.name, retries.name, callDuration.name, attemptDuration.name];
  for (const name of [...talliedNames, ...SNAPSHOT_GAUGES.map((d) => d.name)]) {
    if (registry.getSingleMetric(prefix + name) !== undefined) throw new Error(`A metric with the name ${prefix + name} has already been registered.`);
  }
  const names: string[] = [];
  const tallied = (name: string, help: string, labels: readonly string[], tally: CounterTally | HistogramTally) => {
    registry.registerMetric(new TalliedMetric(prefix + name, help, labels, tally) as unknown as Metric);
    names.push(prefix + name);
  };

  const tallies = new CallTallies(pool, topology);
  for (const { name, help, labels, tally } of tallies.counters) tallied(name, help, labels, tally);
  const callSeconds = new HistogramTally(buckets);
  const attemptSeconds = new HistogramTally(buckets);
  tallied(callDuration.name, callDuration.help, callDuration.labels, callSeconds);
  tallied(attemptDuration.name, attemptDuration.help, attemptDuration.labels, attemptSeconds);
  for (const endpoint of topology.endpoints) attemptSeconds.at(endpoint, [endpoint]);
  for (const kind of topology.kinds) callSeconds.at(kind, [kind]);

  for (const definition of SNAPSHOT_GAUGES) {
    const name = prefix + definition.name;
    new Gauge({
      name,
      help: definition.help,
      labelNames: [...definition.labels],
      registers: [registry],
      collect() {
        this.reset();
        definition.collect(pool.snapshot(), (value, ...values) => this.labels(...values).set(value));
      },
    });
    names.push(name);
  }

  const stopObserving = pool[OBSERVE_CALLS]<undefined>({
    start: () => undefined,
    attempt(_state, call, attempt) {
      tallies.attempt(call, attempt);
      attemptSeconds.observe(attempt.endpointId, attempt.latencyMs / 1000);
    },
    end(_state, call, end) {
      tallies.end(call, end);
      callSeconds.observe(call.kind, end.durationMs / 1000);
    },
  });
  return runOnce([stopObserving, () => tallies.stop(), () => names.forEach((name) => registry.removeSingleMetric(name))]);
}
