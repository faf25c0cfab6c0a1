import type { Clock } from '../../src/clock.js';
import type { ExecuteRequest, HttpExecutor, RawOutcome } from '../../src/http/executor.js';

/** A scripted reply: an outcome, or a function of the request (may return a promise that never settles). */
export type Script = RawOutcome | ((request: ExecuteRequest, id: number) => RawOutcome | Promise<RawOutcome>);

export function ok(result: unknown, id: number, status = 200): RawOutcome {
  return { type: 'response', status, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id, result }) };
}

/** Hangs until the pool cancels the attempt, then reports the abort, like a real executor. */
export const hangUntilAborted: Script = (request) =>
  new Promise((resolve) => request.signal.addEventListener('abort', () => resolve({ type: 'error', kind: 'aborted', dispatched: true }), { once: true }));

/**
 * Answers `result` after `latencyMs` of `clock` time (a number, or a function read per request;
 * 0 answers at once); an attempt the pool cancels first ends as aborted, like a real executor.
 */
export function answerAfter(clock: Pick<Clock, 'setTimer'>, latencyMs: number | (() => number), result: unknown = 'x'): Script {
  return (request, id) => {
    const delay = typeof latencyMs === 'number' ? latencyMs : latencyMs();
    if (delay === 0) return ok(result, id);
    return new Promise<RawOutcome>((resolve) => {
      const timer = clock.setTimer(() => resolve(ok(result, id)), delay);
      request.signal.addEventListener(
        'abort',
        () => {
          timer.cancel();
          resolve({ type: 'error', kind: 'aborted', dispatched: true });
        },
        { once: true },
      );
    });
  };
}

/** Reads the JSON-RPC id of a request body. */
export function idOf(request: ExecuteRequest): number {
  return (JSON.parse(request.body) as { id: number }).id;
}

/**
 * An in-memory executor: per endpoint id, a queue of scripted replies (the last one
 * repeats), and a log of every request it received — what "the server" observed.
 */
export function createScriptedExecutor(scripts: Record<string, Script[]> = {}) {
  const received: { endpointId: string; method: string; body: string }[] = [];
  let closed = false;
  const executor: HttpExecutor & {
    received: typeof received;
    countFor(endpointId: string, method?: string): number;
    readonly closed: boolean;
    script(endpointId: string, ...replies: Script[]): void;
  } = {
    received,
    get closed() {
      return closed;
    },
    script(endpointId, ...replies) {
      scripts[endpointId] = replies;
    },
    countFor(endpointId, method) {
      return received.filter((r) => r.endpointId === endpointId && (method === undefined || r.method === method)).length;
    },
    async execute(request) {
      const body = JSON.parse(request.body) as { id: number; method: string };
      received.push({ endpointId: request.target.endpointId, method: body.method, body: request.body });
      const queue = scripts[request.target.endpointId] ?? [(req: ExecuteRequest) => ok('default', idOf(req))];
      const next = queue.length > 1 ? queue.shift()! : queue[0]!;
      return typeof next === 'function' ? next(request, body.id) : next;
    },
    async close() {
      closed = true;
    },
  };
  return executor;
}
