/**
 * The `logger` option's wiring: pool events through {@link LOG_RULES}, and sends that ended
 * ambiguous through the call hook (a send that may have landed is a state the operator must
 * know about, logged once per such send). Nothing is ever written to the console.
 */
import { isTransportError } from '../errors/transport-error.js';
import type { CallObserver } from '../pipeline/call-observer.js';
import type { PoolEventName, PoolEvents } from '../api/events.js';
import { LOG_RULES, type LogEntry, type LogLevel, type LogMemory } from './log-rules.js';

/** A logger with the shape of pino's and the console's: `logger.warn(fields, message)`. */
export type PoolLogger = { readonly [L in LogLevel]: (fields: Readonly<Record<string, unknown>>, message: string) => void };

function write(logger: PoolLogger, line: LogEntry | undefined): void {
  if (line === undefined) return;
  try {
    logger[line.level](line.fields, line.message);
  } catch {
    // A broken logger must never fail a call.
  }
}

/** The ambiguous-send line of a settled call, if it was one. */
function ambiguousSend(method: string, error: unknown): LogEntry | undefined {
  if (!isTransportError(error, 'AMBIGUOUS_DISPATCH')) return undefined;
  const { endpointId, context } = error;
  const id = context.signature ?? context.transactionHash;
  return {
    level: 'warn',
    message: `sturdy-rpc: ${method} may have reached endpoint '${endpointId ?? '?'}' with no definitive answer; not resent${id === undefined ? '' : ` (reconcile ${id})`}`,
    fields: { event: 'ambiguous-send', method, endpointId, signature: context.signature, transactionHash: context.transactionHash },
  };
}

/** Subscribes `logger` to the pool; returns the function that stops it. */
export function attachLogger(logger: PoolLogger, events: PoolEvents, observe: (observer: CallObserver<undefined>) => () => void): () => void {
  const memory: LogMemory = { bands: new Map() };
  const stops = (Object.keys(LOG_RULES) as PoolEventName[]).map((name) =>
    events.on(name, (event) => write(logger, (LOG_RULES[name] as (e: typeof event, m: LogMemory) => LogEntry | undefined)(event, memory))),
  );
  stops.push(
    observe({
      start: () => undefined,
      attempt: () => undefined,
      end: (_state, call, end) => write(logger, ambiguousSend(call.method, end.error)),
    }),
  );
  return () => stops.forEach((stop) => stop());
}
