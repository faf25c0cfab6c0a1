/**
 * `sturdy-rpc/metrics/prometheus`: the pool's metrics in a prom-client registry (an optional
 * peer dependency: only this entry imports it). Counters and histograms are fed by the pool's
 * events and call hook, one label lookup and one increment each; gauges are read from
 * `pool.snapshot()` when Prometheus scrapes. Every label has a value set the configuration
 * bounds (README "Monitoring" gives the series formula).
 */
import { Counter, Gauge, Histogram, register as globalRegistry, type Registry } from 'prom-client';
import type { HttpTransportPool } from '../pool/http-transport-pool.js';
import { OBSERVE_CALLS, type CallObserver } from '../pool/call-observer.js';
import {
  CALL_METRICS,
  causeLabel,
  DEFAULT_DURATION_BUCKETS,
  EVENT_COUNTERS,
  labelCombinations,
  outcomeCode,
  SNAPSHOT_GAUGES,
  topologyOf,
} from './definitions.js';

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

interface Incrementable {
  inc(): void;
}
interface Observable {
  observe(value: number): void;
}

/** Label children by key: prom-client hashes a label object per call; a child is found once, then only incremented. */
function cached<T>(make: (...values: string[]) => T): (key: string, ...values: string[]) => T {
  const children = new Map<string, T>();
  return (key, ...values) => {
    let child = children.get(key);
    if (child === undefined) {
      child = make(...values);
      children.set(key, child);
    }
    return child;
  };
}

/**
 * Registers the pool's metrics (README "Monitoring") and returns the function that removes
 * them. One pool per registry and prefix: a second registration with the same names throws
 * prom-client's "already registered" error.
 */
export function registerPrometheusMetrics(pool: HttpTransportPool, options: PrometheusMetricsOptions = {}): UnregisterPrometheusMetrics {
  const registry = options.registry ?? globalRegistry;
  const prefix = options.prefix ?? 'sturdy_rpc_';
  const buckets = [...(options.durationBuckets ?? DEFAULT_DURATION_BUCKETS)];
  const topology = topologyOf(pool.snapshot());
  const names: string[] = [];
  const registers = [registry];
  const named = <T>(name: string, make: (fullName: string) => T): T => {
    const metric = make(prefix + name);
    names.push(prefix + name);
    return metric;
  };
  const disposers: (() => void)[] = [];

  try {
    for (const definition of EVENT_COUNTERS) {
      const metric = named(definition.name, (name) => new Counter({ name, help: definition.help, labelNames: [...definition.labels], registers }));
      for (const values of labelCombinations(definition.labels, topology)) metric.labels(...values).inc(0);
      const child = cached((...values) => metric.labels(...values) as Incrementable);
      const inc = (...values: string[]) => child(values.join('\u0000'), ...values).inc();
      disposers.push(pool.on(definition.event, (event) => definition.count(event, inc)));
    }

    for (const definition of SNAPSHOT_GAUGES) {
      named(
        definition.name,
        (name) =>
          new Gauge({
            name,
            help: definition.help,
            labelNames: [...definition.labels],
            registers,
            collect() {
              this.reset();
              definition.collect(pool.snapshot(), (value, ...values) => this.labels(...values).set(value));
            },
          }),
      );
    }

    const { calls, attempts, retries, callDuration, attemptDuration } = CALL_METRICS;
    const callsTotal = named(calls.name, (name) => new Counter({ name, help: calls.help, labelNames: [...calls.labels], registers }));
    const attemptsTotal = named(attempts.name, (name) => new Counter({ name, help: attempts.help, labelNames: [...attempts.labels], registers }));
    const retriesTotal = named(retries.name, (name) => new Counter({ name, help: retries.help, labelNames: [...retries.labels], registers }));
    const callSeconds = named(callDuration.name, (name) => new Histogram({ name, help: callDuration.help, labelNames: [...callDuration.labels], buckets, registers }));
    const attemptSeconds = named(attemptDuration.name, (name) => new Histogram({ name, help: attemptDuration.help, labelNames: [...attemptDuration.labels], buckets, registers }));
    for (const endpoint of topology.endpoints) {
      retriesTotal.labels(endpoint).inc(0);
      attemptSeconds.zero({ endpoint });
    }
    for (const kind of topology.kinds) callSeconds.zero({ kind });

    const callChild = cached((...values) => callsTotal.labels(...values) as Incrementable);
    const attemptChild = cached((...values) => attemptsTotal.labels(...values) as Incrementable);
    const retryChild = cached((endpoint) => retriesTotal.labels(endpoint!) as Incrementable);
    const callSecondsChild = cached((kind) => callSeconds.labels(kind!) as Observable);
    const attemptSecondsChild = cached((endpoint) => attemptSeconds.labels(endpoint!) as Observable);

    const observer: CallObserver<undefined> = {
      start: () => undefined,
      attempt(_state, call, attempt) {
        const cause = causeLabel(attempt.outcome, attempt.cause);
        const { endpointId, dispatch } = attempt;
        attemptChild(`${endpointId}\u0000${call.kind}\u0000${cause}\u0000${dispatch}`, endpointId, call.kind, cause, dispatch).inc();
        attemptSecondsChild(endpointId, endpointId).observe(attempt.latencyMs / 1000);
        if (attempt.attempt > 1 && attempt.outcome !== 'lost') retryChild(endpointId, endpointId).inc();
      },
      end(_state, call, end) {
        const code = outcomeCode(end.error);
        callChild(`${call.kind}\u0000${call.methodLabel}\u0000${code}`, call.kind, call.methodLabel, code).inc();
        callSecondsChild(call.kind, call.kind).observe(end.durationMs / 1000);
      },
    };
    disposers.push(pool[OBSERVE_CALLS](observer));
  } catch (error) {
    for (const dispose of disposers) dispose();
    for (const name of names) registry.removeSingleMetric(name);
    throw error;
  }

  let done = false;
  return () => {
    if (done) return;
    done = true;
    for (const dispose of disposers) dispose();
    for (const name of names) registry.removeSingleMetric(name);
  };
}
