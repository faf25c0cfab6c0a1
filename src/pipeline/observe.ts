/**
 * The observe stage: exporters (Prometheus, OpenTelemetry, the logger) learn a call's start
 * — synchronously, in the caller's async context — each attempt (the record stage tells the
 * call's observation) and its end. In the chain only while someone observes: the pool
 * reassembles its entry when an exporter attaches or detaches.
 */
import { CallObservation, type CallLabeler, type CallObserver } from './call-observer.js';
import type { PipelineHost } from './host.js';
import type { RequestHandler, Stage } from './stage.js';

export function observeStage(host: Pick<PipelineHost, 'clock' | 'classify'>, observers: readonly CallObserver[], labeler: CallLabeler): Stage<RequestHandler> {
  const { clock } = host;
  return (next) => async (method, params, options) => {
    const valid = typeof method === 'string' && method.length > 0;
    const kind = valid ? (options.kind ?? host.classify(method, options).kind) : 'other';
    const startedAtMs = clock.now();
    // The call's one wall-clock read: its attempts' and its end's wall times are this plus
    // monotonic time elapsed (as the OpenTelemetry SDK times a span), so a clock step mid-call
    // moves no span's end before its start, and a call reads the wall clock once, not 2 + attempts times.
    const startedAtWallMs = clock.wallNow();
    const observation = new CallObservation(observers, {
      method: valid ? method : '',
      methodLabel: valid ? labeler.methodLabel(method) : 'other',
      kind: labeler.kindLabel(kind),
      startedAtMs,
      startedAtWallMs,
    });
    let error: unknown;
    try {
      return await next(method, params, options, observation);
    } catch (thrown) {
      error = thrown;
      throw thrown;
    } finally {
      const durationMs = clock.now() - startedAtMs;
      observation.end({ error, durationMs, endedAtWallMs: startedAtWallMs + durationMs });
    }
  };
}
