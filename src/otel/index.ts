/**
 * `sturdy-rpc/otel`: one span per call (JSON-RPC client span), a child span per attempt
 * (HTTP client span) in calls that took more than one (see `attemptSpans`), and the pool's
 * metrics through an OpenTelemetry meter. Built on `@opentelemetry/api` only (an optional
 * peer): without an SDK every call is a no-op, and the global providers are used when none
 * are given.
 *
 * Secrecy: no attribute carries a URL, a host, a header or a key — endpoints are named by
 * their configured id (`sturdy_rpc.endpoint`), so `server.address` and `url.full` are left out
 * on purpose. `rpc.method` is bounded like the Prometheus label: a method of the built-in
 * table or the pool's `methods` option, else `_OTHER`.
 *
 * @module sturdy-rpc/otel
 */
import {
  context,
  INVALID_SPAN_CONTEXT,
  metrics,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type BatchObservableResult,
  type Context,
  type Histogram,
  type Observable,
  type MeterProvider,
  type Span,
  type TracerProvider,
} from '@opentelemetry/api';
import { TransportError } from '../errors/transport-error.js';
import type { HttpTransportPool } from '../pool/http-transport-pool.js';
import { OBSERVE_CALLS, type CallObserver, type ObservedAttempt, type ObservedCall } from '../pipeline/call-observer.js';
import { CallTallies, runOnce } from '../metrics/call-tallies.js';
import { CALL_METRICS, causeLabel, DEFAULT_DURATION_BUCKETS, outcomeCode } from '../metrics/call-metrics.js';
import { SNAPSHOT_GAUGES, topologyOf } from '../metrics/definitions.js';

export interface OpenTelemetryOptions {
  /** Where spans go. @default the global tracer provider (`trace.getTracerProvider()`) */
  readonly tracerProvider?: TracerProvider;
  /** Where metrics go. @default the global meter provider (`metrics.getMeterProvider()`) */
  readonly meterProvider?: MeterProvider;
  /**
   * When a call's attempts get spans of their own. `'on-retry'`: only in calls that took more
   * than one attempt (a failure, a retry, a hedge) — then every attempt of the call has one,
   * the first too; a call answered by its first attempt is one span. `'always'`: every
   * attempt. An attempt span costs about as much as the call span, so `'on-retry'` keeps
   * the tracing cost of the common call at one span.
   * @default 'on-retry'
   */
  readonly attemptSpans?: 'always' | 'on-retry';
  /**
   * Bucket boundaries of the two duration histograms, in seconds, handed to the SDK as advice
   * (a View still wins). Without them an SDK uses its millisecond defaults (0, 5, 10, … 10 000),
   * and every call, in seconds, would land in the first bucket or two.
   * @default the Prometheus exporter's: 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30
   */
  readonly durationBuckets?: readonly number[];
}

/** Stops creating spans and recording metrics for the pool. Spans already started still end. Idempotent. */
export type UninstrumentOpenTelemetry = () => void;

const SCOPE = 'sturdy-rpc';
/** The current conventions' value for a method outside the method table. */
const OTHER_METHOD = '_OTHER';

interface CallState {
  readonly span: Span;
  /** Read once at start: a hedge race's loser is reported after the call span ended (no longer recording). */
  readonly recording: boolean;
  readonly parent: Context;
  /** The call span's context, the attempt spans' parent: built at the first attempt span only. */
  context: Context | undefined;
  /**
   * `'on-retry'`: the first attempt, held back while it is the call's only one (no span yet);
   * `null` once the call has more than one attempt (every later attempt gets its span at once).
   */
  held: ObservedAttempt | undefined | null;
}

/** The state of every call whose span does not record: never written to (see `start`). */
const UNRECORDED: CallState = Object.freeze({ span: trace.wrapSpanContext(INVALID_SPAN_CONTEXT), recording: false, parent: ROOT_CONTEXT, context: undefined, held: null });

/** OpenTelemetry metric name of a definition: `sturdy_rpc.rate_limits` for `rate_limits_total`. */
function otelName(name: string): string {
  return `sturdy_rpc.${name.replace(/_total$/, '').replace(/_duration_seconds$/, '.duration')}`;
}

function attributesOf(labels: readonly string[], values: readonly string[]): Attributes {
  const attributes: Attributes = {};
  labels.forEach((label, i) => (attributes[label] = values[i]));
  return attributes;
}

/** One-attribute objects by value, built once per series (the SDK only reads them). */
function cachedAttributes(label: string): (value: string) => Attributes {
  const cache = new Map<string, Attributes>();
  return (value) => {
    let attributes = cache.get(value);
    if (attributes === undefined) {
      attributes = Object.freeze({ [label]: value });
      cache.set(value, attributes);
    }
    return attributes;
  };
}

function rpcCodeOf(error: unknown): number | undefined {
  const code: unknown = typeof error === 'object' && error !== null ? Reflect.get(error, 'rpcCode') : undefined;
  return typeof code === 'number' ? code : undefined;
}

/**
 * Instruments `pool` with OpenTelemetry spans and metrics (docs/observability.md "Monitoring"); returns the
 * function that stops it. Each `pool.request()` becomes a CLIENT span whose parent is the
 * caller's active span, with a child span per attempt when it took more than one (`attemptSpans`).
 */
export function instrumentOpenTelemetry(pool: HttpTransportPool, options: OpenTelemetryOptions = {}): UninstrumentOpenTelemetry {
  const { attemptSpans, durationBuckets } = options;
  // Before anything is created: a bad option instruments nothing. The value is not echoed.
  const invalid = (path: string, message: string) =>
    new TransportError('INVALID_CONFIG', `Invalid OpenTelemetry options: ${path}: ${message}`, { context: { issues: [{ path, message }] } });
  if (attemptSpans !== undefined && attemptSpans !== 'always' && attemptSpans !== 'on-retry') throw invalid('attemptSpans', "must be 'always' or 'on-retry'");
  if (durationBuckets !== undefined && !(Array.isArray(durationBuckets) && durationBuckets.every((b, i) => Number.isFinite(b) && b > 0 && (i === 0 || b > durationBuckets[i - 1]!)))) {
    throw invalid('durationBuckets', 'must be positive numbers of seconds in increasing order');
  }
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(SCOPE);
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE);
  const topology = topologyOf(pool.snapshot());
  const disposers: (() => void)[] = [];

  // Counters are tallied as plain numbers and reported by observable counters at collection:
  // the SDK's per-record work (attribute hashing, storage lookup) stays off the hot path.
  const tallies = new CallTallies(pool, topology);
  disposers.push(() => tallies.stop());
  const counters = tallies.counters.map(({ name, help, labels, tally }) => ({
    labels,
    tally,
    instrument: meter.createObservableCounter(otelName(name), { description: help }),
  }));
  const { callDuration, attemptDuration } = CALL_METRICS;

  const gauges = SNAPSHOT_GAUGES.map((definition) => ({ definition, gauge: meter.createObservableGauge(otelName(definition.name), { description: definition.help }) }));
  const observables: Observable[] = [...counters.map((c) => c.instrument), ...gauges.map((g) => g.gauge)];
  const collect = (result: BatchObservableResult) => {
    for (const { labels, tally, instrument } of counters) {
      for (const series of tally.series.values()) result.observe(instrument, series.value, attributesOf(labels, series.values));
    }
    const snapshot = pool.snapshot();
    for (const { definition, gauge } of gauges) {
      definition.collect(snapshot, (value, ...values) => result.observe(gauge, value, attributesOf(definition.labels, values)));
    }
  };
  meter.addBatchObservableCallback(collect, observables);
  disposers.push(() => meter.removeBatchObservableCallback(collect, observables));

  const advice = { explicitBucketBoundaries: [...(durationBuckets ?? DEFAULT_DURATION_BUCKETS)] };
  const callSeconds: Histogram = meter.createHistogram(otelName(callDuration.name), { description: callDuration.help, unit: 's', advice });
  const attemptSeconds: Histogram = meter.createHistogram(otelName(attemptDuration.name), { description: attemptDuration.help, unit: 's', advice });
  const endpointAttributes = cachedAttributes('endpoint');
  const kindAttributes = cachedAttributes('kind');

  // A call span's attributes depend on its kind and method label only: built once per pair.
  const callAttributeSets = new Map<string, Map<string, Attributes>>();
  const callAttributes = (kind: string, methodLabel: string): Attributes => {
    let byMethod = callAttributeSets.get(kind);
    if (byMethod === undefined) callAttributeSets.set(kind, (byMethod = new Map()));
    let attributes = byMethod.get(methodLabel);
    if (attributes === undefined) {
      const method = methodLabel === 'other' ? OTHER_METHOD : methodLabel;
      attributes = Object.freeze({
        'rpc.system': 'jsonrpc',
        'rpc.system.name': 'jsonrpc',
        'rpc.method': method,
        'rpc.jsonrpc.version': '2.0',
        'jsonrpc.protocol.version': '2.0',
        'sturdy_rpc.kind': kind,
      });
      byMethod.set(methodLabel, attributes);
    }
    return attributes;
  };

  const everyAttempt = attemptSpans === 'always';
  /** An attempt's HTTP client span, started and ended after the fact from its recorded times. */
  const attemptSpan = (state: CallState, attempt: ObservedAttempt): void => {
    const attributes: Attributes = {
      'http.request.method': 'POST',
      'http.request.resend_count': attempt.attempt - 1,
      'sturdy_rpc.endpoint': attempt.endpointId,
      'sturdy_rpc.attempt': attempt.attempt,
      'sturdy_rpc.outcome': attempt.outcome,
      'sturdy_rpc.dispatch': attempt.dispatch,
    };
    if (attempt.status !== undefined) attributes['http.response.status_code'] = attempt.status;
    if (attempt.outcome !== 'success') {
      const cause = causeLabel(attempt.outcome, attempt.cause);
      attributes['sturdy_rpc.cause'] = cause;
      attributes['error.type'] = cause;
    }
    if (attempt.rpcCode !== undefined) attributes['rpc.response.status_code'] = String(attempt.rpcCode);
    const span = tracer.startSpan('POST', { kind: SpanKind.CLIENT, startTime: attempt.startedAtWallMs, attributes }, (state.context ??= trace.setSpan(state.parent, state.span)));
    if (attempt.outcome === 'failure') span.setStatus({ code: SpanStatusCode.ERROR });
    span.end(attempt.startedAtWallMs + attempt.latencyMs);
  };

  const observer: CallObserver<CallState> = {
    start(call: ObservedCall) {
      const parent = context.active();
      const attributes = callAttributes(call.kind, call.methodLabel);
      const span = tracer.startSpan(attributes['rpc.method'] as string, { kind: SpanKind.CLIENT, startTime: call.startedAtWallMs, attributes }, parent);
      // A non-recording span (no SDK, or not sampled) has no children and nothing to end:
      // one shared state, no object per call.
      return span.isRecording() ? { span, recording: true, parent, context: undefined, held: undefined } : UNRECORDED;
    },
    attempt(state, call, attempt) {
      tallies.attempt(call, attempt);
      attemptSeconds.record(attempt.latencyMs / 1000, endpointAttributes(attempt.endpointId));
      if (!state.recording) return;
      if (everyAttempt || state.held === null) return attemptSpan(state, attempt);
      if (state.held === undefined && attempt.outcome === 'success' && attempt.attempt === 1) {
        state.held = attempt; // the common call: no span unless another attempt follows
        return;
      }
      const held = state.held;
      state.held = null;
      if (held !== undefined) attemptSpan(state, held);
      attemptSpan(state, attempt);
    },
    end(state, call, end) {
      tallies.end(call, end);
      const code = outcomeCode(end.error);
      callSeconds.record(end.durationMs / 1000, kindAttributes(call.kind));
      const { span } = state;
      if (!state.recording) return;
      if (end.error !== undefined) {
        span.setAttribute('error.type', code);
        const rpcCode = rpcCodeOf(end.error);
        if (rpcCode !== undefined) span.setAttribute('rpc.response.status_code', String(rpcCode));
        // The code only: a message could quote a node's text.
        span.setStatus({ code: SpanStatusCode.ERROR, message: code });
      }
      span.end(end.endedAtWallMs);
    },
  };
  disposers.push(pool[OBSERVE_CALLS](observer));
  return runOnce(disposers);
}
