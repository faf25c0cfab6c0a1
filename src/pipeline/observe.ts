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
    const observation = new CallObservation(observers, {
      method: valid ? method : '',
      methodLabel: valid ? labeler.methodLabel(method) : 'other',
      kind: labeler.kindLabel(kind),
      startedAtMs,
      startedAtWallMs: clock.wallNow(),
    });
    let error: unknown;
    try {
      return await next(method, params, options, observation);
    } catch (thrown) {
      error = thrown;
      throw thrown;
    } finally {
      observation.end({ error, durationMs: clock.now() - startedAtMs, endedAtWallMs: clock.wallNow() });
    }
  };
}
