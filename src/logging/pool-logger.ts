/**
 * The `logger` option's wiring: pool events through {@link LOG_RULES}, and sends that ended
 * ambiguous through the call hook (a send that may have landed is a state the operator must
 * know about, logged once per such send). Nothing is ever written to the console.
 */
import { isTransportError } from '../errors/transport-error.js';
import type { CallObserver } from '../pipeline/call-observer.js';
import type { PoolEventName, PoolEvents } from '../api/events.js';
import type { LogEntry, LogLevel, LogMemory } from './log-rules.js';
import { LOGGED_EVENTS } from './logged-events.js';
import { loadLogRules, type LogRules } from './log-rules-loader.js';

/** Most events held while the rules load (the browser build); beyond, the oldest are dropped. */
const MAX_HELD_EVENTS = 1_000;

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
  const loaded = loadLogRules();
  let rules: LogRules | undefined = loaded instanceof Promise ? undefined : loaded;
  const held: [PoolEventName, unknown][] = [];
  let stopped = false;
  const line = (name: PoolEventName, event: unknown) => write(logger, (rules![name] as ((e: unknown, m: LogMemory) => LogEntry | undefined) | undefined)?.(event, memory));
  const stops = LOGGED_EVENTS.map((name) =>
    events.on(name, (event) => {
      if (rules !== undefined) line(name, event);
      else if (held.push([name, event]) > MAX_HELD_EVENTS) held.shift();
    }),
  );
  if (loaded instanceof Promise) {
    loaded.then(
      (arrived) => {
        rules = arrived;
        for (const [name, event] of held.splice(0)) line(name, event);
      },
      () => {
        held.length = 0;
        if (!stopped) write(logger, { level: 'error', message: 'sturdy-rpc: the log rules could not be loaded; pool events are not logged', fields: { event: 'load-failed', module: 'log-rules' } });
      },
    );
  }
  stops.push(
    observe({
      start: () => undefined,
      attempt: () => undefined,
      end: (_state, call, end) => write(logger, ambiguousSend(call.method, end.error)),
    }),
  );
  return () => {
    stopped = true;
    stops.forEach((stop) => stop());
  };
}
