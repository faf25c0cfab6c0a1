import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createSeededRandom, systemClock, type TimerHandle } from '../clock.js';
import { corsAnswerHeaders, corsPreflightHeaders, corsSettings } from './cors.js';
import { createBehaviourEngine, type BehaviourPlan } from './behaviours.js';
import { headAnswer, httpErrorAnswer, htmlAnswer, rateLimitAnswer, transformAnswer, truncateAnswer } from './fault-answers.js';
import type { CreateFixtureServerOptions, FixtureServer, FixtureServerRequest } from './fixture-server-types.js';
import { attachFixtureWebSocket } from './fixture-websocket.js';
import { answerBody, answerCall, callsOf, parseRequestBody, type ParsedRequestBody, type ReplayAnswer } from './replay.js';

interface Waiter {
  readonly count: number;
  readonly method: string | undefined;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

export type { CreateFixtureServerOptions, FixtureServer, FixtureServerHead, FixtureServerRequest } from './fixture-server-types.js';

const noop = () => undefined;

/**
 * Starts a real HTTP JSON-RPC server that answers from fixtures, with the request id
 * substituted, and misbehaves on request. Unknown methods get JSON-RPC -32601; batches are
 * answered per item.
 *
 * ```ts
 * const clock = createFakeClock();
 * const server = await createFixtureServer({
 *   fixtures: loadFixtures('fixtures'),
 *   clock,
 *   behaviours: { '*': [{ type: 'latency', ms: 200 }], sendTransaction: [{ type: 'reset' }] },
 * });
 * const pool = new HttpTransportPool({ endpoints: [{ id: 'a', url: server.url }] });
 * // … exercise your code …
 * expect(server.count('sendTransaction')).toBe(1);
 * await server.close();
 * ```
 */
export async function createFixtureServer(options: CreateFixtureServerOptions): Promise<FixtureServer> {
  const fixtures = options.fixtures;
  const clock = options.clock ?? systemClock;
  const engine = createBehaviourEngine(clock, options.random ?? createSeededRandom(1));
  engine.set(options.behaviours ?? []);
  const requests: FixtureServerRequest[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<TimerHandle>();
  let waiters: Waiter[] = [];
  let closing: Promise<void> | undefined;
  const cors = corsSettings(options.cors);
  const corsHeaders = cors === undefined ? undefined : corsAnswerHeaders(cors);
  const headStartedAt = clock.now();
  let headOffset = 0n;
  const headNow = (): bigint | undefined => {
    const head = options.head;
    if (head === undefined) return undefined;
    const advanced = Math.floor(((clock.now() - headStartedAt) / 1000) * (head.perSecond ?? 0));
    return BigInt(head.start) + BigInt(advanced) + headOffset;
  };
  const answerWithHead = (call: Parameters<typeof answerCall>[1]) => {
    const answer = answerCall(fixtures, call);
    const head = headNow();
    if (head === undefined) return answer;
    return headAnswer(call, answer, head) ?? answer;
  };

  const count = (method?: string) => (method === undefined ? requests.length : requests.filter((r) => r.method === method).length);
  const settleWaiters = () => {
    waiters = waiters.filter((waiter) => {
      if (count(waiter.method) < waiter.count) return true;
      waiter.resolve();
      return false;
    });
  };

  const send = (res: ServerResponse, answer: ReplayAnswer) => {
    if (res.destroyed || res.writableEnded) return;
    try {
      res.writeHead(answer.status, { ...answer.headers, ...corsHeaders, 'content-length': String(Buffer.byteLength(answer.body)) });
      res.end(answer.body);
    } catch {
      // A header Node refuses (from a fixture built in code, not loaded): drop the connection, never crash the server.
      res.destroy();
    }
  };

  const act = (plan: BehaviourPlan, parsed: ParsedRequestBody, req: IncomingMessage, res: ServerResponse) => {
    const normal = () => answerBody(parsed, (call) => transformAnswer(call, answerWithHead(call), plan.transforms));
    const id = parsed.type === 'single' ? parsed.call.id : null;
    const terminal = plan.terminal;
    switch (terminal?.type) {
      case undefined:
        send(res, normal());
        break;
      case 'reset':
        // Read and processed, answer lost: the client cannot know whether the call took effect.
        req.socket.resetAndDestroy();
        break;
      case 'close':
        req.socket.end();
        break;
      case 'hang':
        break;
      case 'rate-limit':
        send(res, rateLimitAnswer(terminal, id, clock));
        break;
      case 'http-error':
        send(res, httpErrorAnswer(terminal, id));
        break;
      case 'html':
        send(res, htmlAnswer());
        break;
      case 'truncate':
        send(res, truncateAnswer(normal(), terminal.keepRatio));
        break;
    }
  };

  const handle = (req: IncomingMessage, res: ServerResponse, text: string) => {
    const parsed = parseRequestBody(text);
    const calls = callsOf(parsed);
    const atMs = clock.now();
    if (calls.length === 0) requests.push({ method: '', params: undefined, id: null, atMs });
    for (const call of calls) requests.push({ method: call.method, params: call.params, id: call.id, atMs });
    const plan = engine.plan(calls.map((call) => call.method));
    if (plan.delayMs > 0) {
      const timer = clock.setTimer(() => {
        timers.delete(timer);
        act(plan, parsed, req, res);
      }, plan.delayMs);
      timers.add(timer);
    } else {
      act(plan, parsed, req, res);
    }
    // After the plan, so a test woken by waitForRequests sees the latency timer already set.
    settleWaiters();
  };

  const server = createServer((req, res) => {
    // Resets and early closes are the point of this server: never let them crash it.
    req.on('error', noop);
    res.on('error', noop);
    if (req.method === 'OPTIONS' && cors !== undefined) {
      res.writeHead(204, corsPreflightHeaders(cors, req.headers['access-control-request-headers'])).end();
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST', 'content-type': 'text/plain' }).end('Method Not Allowed');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('error', noop);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('clientError', (_error, socket) => socket.destroy());

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const ws =
    options.websocket === undefined
      ? undefined
      : await attachFixtureWebSocket(server, options.websocket, {
          clock,
          log(method, params, id) {
            requests.push({ method, params, id, atMs: clock.now() });
            settleWaiters();
          },
        });
  const hostPort = `${host.includes(':') ? `[${host}]` : host}:${port}`;

  return {
    url: `http://${hostPort}`,
    wsUrl: ws === undefined ? undefined : `ws://${hostPort}`,
    ws,
    port,
    requests,
    count,
    countByMethod() {
      const counts: Record<string, number> = {};
      for (const request of requests) counts[request.method] = (counts[request.method] ?? 0) + 1;
      return counts;
    },
    setBehaviours(behaviours) {
      engine.set(behaviours);
    },
    waitForRequests(target, method) {
      if (closing !== undefined) return Promise.reject(new Error('fixture server is closed'));
      return new Promise<void>((resolve, reject) => {
        waiters.push({ count: target, method, resolve, reject });
        settleWaiters();
      });
    },
    head: headNow,
    moveHead(by) {
      headOffset += BigInt(by);
    },
    reset() {
      requests.splice(0);
      engine.reset();
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        ws?.close();
        for (const timer of timers) timer.cancel();
        timers.clear();
        for (const waiter of waiters) waiter.reject(new Error('fixture server closed before the requests arrived'));
        waiters = [];
        server.close(() => resolve());
        server.closeAllConnections();
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}
