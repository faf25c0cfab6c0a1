/**
 * What both exporters count, tallied once: the event counters (subscribed per
 * {@link EVENT_COUNTERS}, their series created at 0) and the call hook's counters (calls,
 * attempts, retries). An exporter only decides how to hand the numbers over.
 */
import type { HttpTransportPool } from '../pool/http-transport-pool.js';
import type { ObservedAttempt, ObservedCall, ObservedCallEnd } from '../pipeline/call-observer.js';
import { CALL_METRICS, causeLabel, outcomeCode } from './call-metrics.js';
import { EVENT_COUNTERS, labelCombinations, type MetricTopology } from './definitions.js';
import { SeriesIndex } from './series-index.js';
import { CounterTally, keyOf } from './tally.js';

/** A tallied counter with its name, help and labels (the definitions' names, without a prefix). */
export interface NamedTally {
  readonly name: string;
  readonly help: string;
  readonly labels: readonly string[];
  readonly tally: CounterTally;
}

export class CallTallies {
  readonly calls = new CounterTally();
  readonly attempts = new CounterTally();
  readonly retries = new CounterTally();
  /** Every counter: the event counters, then calls, attempts and retries. */
  readonly counters: readonly NamedTally[];
  readonly #stops: (() => void)[] = [];
  readonly #attemptSeries = new SeriesIndex(this.attempts);
  readonly #callSeries = new SeriesIndex(this.calls);

  constructor(pool: HttpTransportPool, topology: MetricTopology) {
    const counters: NamedTally[] = [];
    for (const definition of EVENT_COUNTERS) {
      const tally = new CounterTally();
      for (const values of labelCombinations(definition.labels, topology)) tally.at(keyOf(values), values);
      const inc = (...values: string[]) => tally.inc(keyOf(values), values);
      this.#stops.push(pool.on(definition.event, (event) => definition.count(event, inc)));
      counters.push({ ...definition, tally });
    }
    for (const endpoint of topology.endpoints) this.retries.at(endpoint, [endpoint]);
    const { calls, attempts, retries } = CALL_METRICS;
    counters.push({ ...calls, tally: this.calls }, { ...attempts, tally: this.attempts }, { ...retries, tally: this.retries });
    this.counters = counters;
  }

  attempt(call: ObservedCall, attempt: ObservedAttempt): void {
    const cause = causeLabel(attempt.outcome, attempt.cause);
    const { endpointId, dispatch } = attempt;
    this.#attemptSeries.at(endpointId, call.kind, cause, dispatch).value++;
    if (attempt.attempt > 1 && attempt.outcome !== 'lost') this.retries.inc(endpointId);
  }

  end(call: ObservedCall, end: ObservedCallEnd): void {
    this.#callSeries.at(call.kind, call.methodLabel, outcomeCode(end.error)).value++;
  }

  /** Stops listening to the pool's events. */
  stop(): void {
    for (const stop of this.#stops.splice(0)) stop();
  }
}

/** Runs `steps` once, on the first call. */
export function runOnce(steps: readonly (() => void)[]): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    for (const step of steps) step();
  };
}
