/**
 * One socket to one endpoint: JSON-RPC requests over it (subscribe / unsubscribe), routing
 * of notifications to subscriptions by server id, ping/pong keep-alive and the
 * stream-silence watchdog. It never reconnects: when it dies it tells its owner once, and
 * the owner moves its subscriptions (see manager.ts).
 */
import type { Clock, QueuedTimer, TimerHandle, TimerQueue } from '../clock.js';
import { parseJsonExact } from '../jsonrpc/exact-json.js';
import { silenceVerdict } from './silence.js';
import { SocketGoneError, SocketRpcError } from './socket-errors.js';
import type { SocketFactory, SocketFailure, SubscriptionSocket } from './socket.js';
import type { RebindReason } from './types.js';

/** What a connection needs from each subscription living on it. */
export interface ConnectionMember {
  /** Hands a notification's `result` (from a frame of `frameBytes`) to the subscription. */
  notify(result: unknown, nowMs: number, frameBytes: number): void;
  /** For the watchdog: last notification instant and allowed silence (undefined: not a ticking stream yet). */
  readonly lastTickMs: number;
  readonly allowedSilenceMs: number | undefined;
}

export interface ConnectionSettings {
  readonly pingIntervalMs: number;
  readonly pongTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly maxFrameBytes: number;
}

export interface ConnectionHost {
  readonly clock: Clock;
  readonly timers: TimerQueue;
  readonly settings: ConnectionSettings;
  /** The socket died (or never opened). Called once. */
  onDead(connection: Connection, reason: RebindReason, failure: SocketFailure | undefined): void;
}

/** Map key of a node's subscription id: Solana numbers as they are (no string per notification), anything else as a string. */
export function serverKey(id: unknown): string | number {
  return typeof id === 'number' ? id : String(id);
}

/** Requests that timed out and whose late answer is still acted on (a confirmation to undo), at most this many per socket. */
const MAX_LATE = 1024;

interface Pending extends QueuedTimer {
  /** Runs synchronously with the answer, before any later frame: a subscription binds its id here. */
  readonly onAnswer: ((result: unknown) => void) | undefined;
  /** Runs with a successful answer that came after the request timed out. */
  readonly onLate: ((result: unknown) => void) | undefined;
  readonly resolve: (result: unknown) => void;
  readonly reject: (error: Error) => void;
}

type State = 'connecting' | 'open' | 'dead';

export class Connection {
  readonly endpointId: string;
  /** Subscriptions assigned to this socket (being subscribed or live). */
  readonly members = new Set<object>();
  /** Live subscriptions by the server's subscription id (see {@link serverKey}). */
  readonly byServerId = new Map<string | number, ConnectionMember>();
  unknownNotifications = 0;
  garbageFrames = 0;
  readonly #host: ConnectionHost;
  readonly #socket: SubscriptionSocket;
  readonly #pending = new Map<number, Pending>();
  /** Timed-out requests whose answer may still come (insertion order: oldest first). */
  readonly #late = new Map<number, (result: unknown) => void>();
  /** When the first subscription on this socket was confirmed (undefined: none yet). */
  confirmedAtMs: number | undefined;
  readonly #opened: Promise<void>;
  #resolveOpen!: () => void;
  #rejectOpen!: (error: Error) => void;
  #state: State = 'connecting';
  #failure: SocketFailure | undefined;
  #nextId = 0;
  #connectTimer: TimerHandle | undefined;
  #keepAlive: TimerHandle | undefined;
  #awaitingPong = false;
  #watch: TimerHandle | undefined;
  #watchAtMs = Number.POSITIVE_INFINITY;
  #idle: TimerHandle | undefined;

  constructor(endpointId: string, url: string, headers: Readonly<Record<string, string>>, factory: SocketFactory, host: ConnectionHost) {
    this.endpointId = endpointId;
    this.#host = host;
    this.#opened = new Promise<void>((resolve, reject) => {
      this.#resolveOpen = resolve;
      this.#rejectOpen = reject;
    });
    // Nobody may be waiting yet when the socket fails: never an unhandled rejection.
    this.#opened.catch(() => undefined);
    this.#connectTimer = host.clock.setTimer(() => this.#die('error'), host.settings.requestTimeoutMs);
    this.#socket = factory(url, headers, {
      onOpen: () => this.#onOpen(),
      onMessage: (text) => this.#onMessage(text),
      onPong: () => this.#onPong(),
      onFailure: (failure) => {
        this.#failure ??= failure;
      },
      onClose: () => this.#die(this.#failure === undefined ? 'closed' : 'error'),
    }, { maxFrameBytes: host.settings.maxFrameBytes });
  }

  get dead(): boolean {
    return this.#state === 'dead';
  }

  /** Resolves once the socket is open; rejects if it dies first. */
  opened(): Promise<void> {
    return this.#opened;
  }

  /**
   * One JSON-RPC call over the socket, bounded by `requestTimeoutMs`. `onAnswer` runs
   * synchronously when the result arrives, before the next frame is read: a node may send
   * a subscription's first notification right behind its answer, in the same TCP chunk.
   * `onLate` runs with a successful answer that comes after the timeout (while the socket
   * lives): a node that confirms a subscription late must still be told to drop it.
   */
  request(method: string, params: readonly unknown[], onAnswer?: (result: unknown) => void, onLate?: (result: unknown) => void): Promise<unknown> {
    if (this.#state !== 'open') return Promise.reject(new SocketGoneError('socket not open'));
    const id = ++this.#nextId;
    return new Promise((resolve, reject) => {
      const entry: Pending = {
        dueMs: 0,
        onAnswer,
        onLate,
        resolve,
        reject,
        fire: () => {
          this.#pending.delete(id);
          if (onLate !== undefined) {
            this.#late.set(id, onLate);
            if (this.#late.size > MAX_LATE) this.#late.delete(this.#late.keys().next().value!);
          }
          reject(new SocketGoneError('request timed out'));
        },
      };
      this.#pending.set(id, entry);
      this.#host.timers.add(entry, this.#host.settings.requestTimeoutMs);
      this.#socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  }

  /** Arms the silence watchdog for a member whose allowed silence is now known (or changed). */
  watch(member: ConnectionMember): void {
    if (this.#state === 'dead' || member.allowedSilenceMs === undefined) return;
    const due = member.lastTickMs + member.allowedSilenceMs;
    if (due >= this.#watchAtMs) return;
    this.#watch?.cancel();
    this.#watchAtMs = due;
    this.#watch = this.#host.clock.setTimer(() => this.#checkSilence(), due - this.#host.clock.now());
  }

  /** No member left: close after `idleMs` unless one arrives. */
  idleAfter(idleMs: number, onIdle: () => void): void {
    this.#idle?.cancel();
    if (idleMs <= 0) return onIdle();
    this.#idle = this.#host.clock.setTimer(() => {
      this.#idle = undefined;
      if (this.members.size === 0) onIdle();
    }, idleMs);
  }

  /** A member arrived: the socket is in use again. */
  inUse(): void {
    this.#idle?.cancel();
    this.#idle = undefined;
  }

  /** Declares the socket dead for `reason` (silence, leaving rotation) and closes it. */
  kill(reason: RebindReason): void {
    this.#die(reason);
  }

  /** Closes without reporting death (the owner already moved or closed everything). */
  dispose(): void {
    if (this.#state === 'dead') return;
    this.#state = 'dead';
    this.#cleanup();
  }

  #onOpen(): void {
    if (this.#state !== 'connecting') return;
    this.#state = 'open';
    this.#connectTimer?.cancel();
    this.#connectTimer = undefined;
    this.#resolveOpen();
    this.#schedulePing();
  }

  #onMessage(text: string): void {
    if (this.#state !== 'open') return;
    let message: unknown;
    try {
      message = parseJsonExact(text);
    } catch {
      this.garbageFrames++;
      return;
    }
    if (typeof message !== 'object' || message === null) {
      this.garbageFrames++;
      return;
    }
    const m = message as { id?: unknown; result?: unknown; error?: { code?: unknown; message?: unknown }; params?: { subscription?: unknown; result?: unknown } };
    const params = m.params;
    if (params !== undefined && typeof params === 'object' && params !== null && params.subscription !== undefined) {
      const member = this.byServerId.get(serverKey(params.subscription));
      if (member === undefined) this.unknownNotifications++;
      else member.notify(params.result, this.#host.clock.now(), text.length);
      return;
    }
    if (typeof m.id !== 'number') {
      this.garbageFrames++;
      return;
    }
    const pending = this.#pending.get(m.id);
    if (pending === undefined) {
      const late = this.#late.get(m.id);
      this.#late.delete(m.id);
      if (late !== undefined && (m.error === undefined || m.error === null)) late(m.result);
      return;
    }
    this.#pending.delete(m.id);
    this.#host.timers.remove(pending);
    if (m.error !== undefined && m.error !== null) {
      const code = typeof m.error.code === 'number' ? m.error.code : 0;
      pending.reject(new SocketRpcError(code, typeof m.error.message === 'string' ? m.error.message : ''));
    } else {
      pending.onAnswer?.(m.result);
      pending.resolve(m.result);
    }
  }

  /** Ping every `pingIntervalMs` after the last pong; no pong within `pongTimeoutMs` of a ping: dead. */
  #schedulePing(): void {
    const { pingIntervalMs, pongTimeoutMs } = this.#host.settings;
    if (this.#socket.ping === undefined || pingIntervalMs <= 0 || this.#state !== 'open') return;
    this.#keepAlive = this.#host.clock.setTimer(() => {
      this.#awaitingPong = true;
      this.#socket.ping?.();
      this.#keepAlive = this.#host.clock.setTimer(() => this.#die('pong-timeout'), pongTimeoutMs);
    }, pingIntervalMs);
  }

  #onPong(): void {
    if (!this.#awaitingPong || this.#state !== 'open') return;
    this.#awaitingPong = false;
    this.#keepAlive?.cancel();
    this.#schedulePing();
  }

  #checkSilence(): void {
    this.#watch = undefined;
    this.#watchAtMs = Number.POSITIVE_INFINITY;
    if (this.#state === 'dead') return;
    const now = this.#host.clock.now();
    const verdict = silenceVerdict(this.byServerId.values(), now);
    if (verdict.silent) return this.#die('silent');
    if (Number.isFinite(verdict.checkAtMs)) {
      this.#watchAtMs = verdict.checkAtMs;
      this.#watch = this.#host.clock.setTimer(() => this.#checkSilence(), verdict.checkAtMs - now);
    }
  }

  #die(reason: RebindReason): void {
    if (this.#state === 'dead') return;
    this.#state = 'dead';
    this.#cleanup();
    this.#host.onDead(this, this.#failure?.kind === 'rate-limited' || this.#failure?.kind === 'rejected' ? 'rejected' : reason, this.#failure);
  }

  #cleanup(): void {
    this.#connectTimer?.cancel();
    this.#keepAlive?.cancel();
    this.#watch?.cancel();
    this.#idle?.cancel();
    this.#connectTimer = this.#keepAlive = this.#watch = this.#idle = undefined;
    this.#watchAtMs = Number.POSITIVE_INFINITY;
    const gone = new SocketGoneError('socket closed');
    this.#rejectOpen(gone);
    for (const pending of this.#pending.values()) {
      this.#host.timers.remove(pending);
      pending.reject(gone);
    }
    this.#pending.clear();
    this.#late.clear();
    this.#socket.close();
  }
}
