/** The fixture server's options and handle (types only; `fixture-server.ts` builds it). */
import type { Clock, Random } from '../clock.js';
import type { FixtureServerCors } from './cors.js';
import type { FixtureServerBehaviours } from './behaviours.js';
import type { Fixture } from './fixtures.js';
import type { FixtureWebSocket, FixtureWebSocketOptions } from './fixture-websocket.js';

export interface CreateFixtureServerOptions {
  /** The fixtures to answer from (e.g. `loadFixtures('fixtures')`). A method is matched by name; among several fixtures of one method, the first whose params deep-equal the request's wins, else the first. */
  readonly fixtures: readonly Fixture[];
  /** How to misbehave, per server (`'*'` or a plain array) or per method. @default [] */
  readonly behaviours?: FixtureServerBehaviours;
  /** Port to listen on; `0` picks a free one. @default 0 */
  readonly port?: number;
  /** Interface to listen on. @default '127.0.0.1' */
  readonly host?: string;
  /** Clock for latency, rate windows, `atMs` and HTTP-dates (tests pass `createFakeClock()`). @default the system clock */
  readonly clock?: Clock;
  /** Random source for probabilities and random latency. @default a random seeded with 1 */
  readonly random?: Random;
  /**
   * Answer browsers' cross-origin calls: every answer carries `Access-Control-Allow-Origin`
   * (and exposes `Retry-After`), and a preflight `OPTIONS` gets a 204 allowing `POST` with
   * the requested headers. Preflights are not JSON-RPC calls: they are not in `requests`
   * and no behaviour applies to them. `true` allows any origin.
   * @default false (OPTIONS gets 405, no CORS headers)
   */
  readonly cors?: boolean | FixtureServerCors;
  /**
   * A chain head that advances with the server's clock: `getSlot` and `eth_blockNumber` answer
   * it (no fixture needed) and every Solana `result.context.slot` carries it. A `lag`
   * behaviour lowers it, so several servers sharing one clock make a chain with lagging nodes.
   * @default no head: answers come from the fixtures only
   */
  readonly head?: FixtureServerHead;
  /** Speak WebSocket on the same port too (subscriptions; needs the `ws` package). @default off */
  readonly websocket?: FixtureWebSocketOptions;
}

/** The fixture server's advancing head. */
export interface FixtureServerHead {
  /** The head at the server's start (slot or block number). */
  readonly start: number | bigint;
  /** How fast it advances, per second of the server's clock (Solana ≈ 2.5 slots/s). @default 0 */
  readonly perSecond?: number;
}

/** One JSON-RPC call as the server read it (a batch logs one per item). */
export interface FixtureServerRequest {
  /** `''` when the body was not JSON or the item had no string method. */
  readonly method: string;
  readonly params: unknown;
  readonly id: unknown;
  /** The server clock's `now()` when the request body had been read. */
  readonly atMs: number;
}

export interface FixtureServer {
  /** `http://<host>:<port>` (no trailing slash; any path is accepted, so keys in paths work). */
  readonly url: string;
  readonly port: number;
  /** Every call received since start or the last `reset()`, in arrival order (live array). */
  readonly requests: readonly FixtureServerRequest[];
  /**
   * Calls received (of `method`, or in total) — whatever the answer, including calls
   * answered 429, reset or left hanging. Use it to assert "sent exactly once".
   */
  count(method?: string): number;
  /** `{ method: calls }` over every call received. */
  countByMethod(): Record<string, number>;
  /** Replaces the behaviours (counters and rate windows start afresh). */
  setBehaviours(behaviours: FixtureServerBehaviours): void;
  /** Resolves once `count(method)` reaches `count`; rejects if the server closes first. */
  waitForRequests(count: number, method?: string): Promise<void>;
  /** The `head` now (undefined without the option). */
  head(): bigint | undefined;
  /** Moves the head by `by` (a node that catches up, or is restarted behind). */
  moveHead(by: number): void;
  /** Clears the request log, the `everyNth` counters and the rate windows (behaviours stay). */
  reset(): void;
  /** `ws://<host>:<port>` when `websocket` is on. */
  readonly wsUrl: string | undefined;
  /** Control of the WebSocket side (notifications and faults); undefined unless `websocket` is on. */
  readonly ws: FixtureWebSocket | undefined;
  /** Stops listening, cancels pending latency timers and destroys every open socket (hanging ones included). Idempotent. */
  close(): Promise<void>;
}
