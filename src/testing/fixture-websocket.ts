/**
 * The fixture server's WebSocket side (same port as HTTP): Solana/EVM-shaped subscriptions
 * answered with ids, notifications driven by the test (or a slot ticker on the server's
 * clock), and the faults that break real clients: a dropped socket, silence while pings are
 * still answered, a refused upgrade, 429 on the upgrade, notifications for unknown ids and
 * garbage frames. `ws` (an optional peer) is imported only when this is enabled.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Clock, TimerHandle } from '../clock.js';
import { stringifyJson } from '../jsonrpc/exact-json.js';

/** Options of `createFixtureServer({ websocket })`. */
export interface FixtureWebSocketOptions {
  /** Slot ticker period for `slotSubscribe`, in ms on the server's clock; 0 = tick only with `tickSlot()`. @default 400 */
  readonly slotIntervalMs?: number;
  /** The first slot the ticker reports. @default 1000 */
  readonly startSlot?: number;
}

/**
 * How the server answers subscribe calls: `answer` at once; `never` (the call is logged, no
 * answer, no subscription); `{ delayMs }` on the server's clock (the node confirms late);
 * `drop` (confirms, then closes the socket at once: a node that keeps dying).
 */
export type FixtureSubscribeMode = 'answer' | 'never' | 'drop' | { readonly delayMs: number };

/** How the server answers a WebSocket upgrade. */
export type FixtureUpgradeMode = 'accept' | 'refuse' | { readonly status: 429; readonly retryAfterSeconds?: number };

/** Test control of the WebSocket side. */
export interface FixtureWebSocket {
  /** Sockets open now. */
  readonly connections: number;
  /** Upgrade requests received (accepted or not). */
  readonly upgrades: number;
  /** Ping frames received (each answered with a pong by `ws`, silent or not). */
  readonly pings: number;
  /** Live subscriptions, of `method` or all. */
  subscriptions(method?: string): number;
  /** The slot the ticker is at. */
  readonly slot: number;
  /** Advances the slot by `by` and notifies every `slotSubscribe`. */
  tickSlot(by?: number): void;
  /**
   * Sends a notification to every live subscription of `subscribeMethod` whose params
   * `match` accepts (all when omitted). Returns how many were sent. `signatureSubscribe`
   * subscriptions end after their notification, as on a real node.
   */
  notify(subscribeMethod: string, result: unknown, match?: (params: readonly unknown[]) => boolean): number;
  /** Closes every socket abruptly (TCP reset), as a crashing node or a proxy would. */
  drop(): void;
  /** Silent: no notification goes out (ticks included), while pings are still answered and calls still get answers. */
  setSilent(silent: boolean): void;
  setUpgrade(mode: FixtureUpgradeMode): void;
  /** @default 'answer' */
  setSubscribeAnswer(mode: FixtureSubscribeMode): void;
  /** Whether pings get a pong (a half-dead connection answers none). @default true */
  setAnswerPings(answer: boolean): void;
  /** Sends every socket a notification for a subscription id nobody holds. */
  sendUnknownNotification(): void;
  /** Sends every socket frames that are not JSON-RPC (`not json`, `[]`, `42`, a binary frame). */
  sendGarbage(): void;
}

interface WsSocket {
  send(data: string | Buffer): void;
  on(event: 'message', listener: (data: Buffer, isBinary: boolean) => void): void;
  on(event: 'close' | 'error', listener: () => void): void;
  on(event: 'ping', listener: (data: Buffer) => void): void;
  pong(data: Buffer): void;
  terminate(): void;
  readyState: number;
}
interface WsServer {
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, done: (ws: WsSocket) => void): void;
  close(): void;
}

interface LiveSubscription {
  readonly id: number;
  readonly method: string;
  readonly params: readonly unknown[];
  readonly socket: WsSocket;
}

const NOTIFICATION_OF: Readonly<Record<string, string>> = {
  slotSubscribe: 'slotNotification',
  rootSubscribe: 'rootNotification',
  accountSubscribe: 'accountNotification',
  programSubscribe: 'programNotification',
  logsSubscribe: 'logsNotification',
  signatureSubscribe: 'signatureNotification',
  blockSubscribe: 'blockNotification',
  eth_subscribe: 'eth_subscription',
};

export interface FixtureWebSocketHost {
  readonly clock: Clock;
  /** Logs a call received over a socket (into the server's `requests`). */
  log(method: string, params: unknown, id: unknown): void;
}

/** Attaches the WebSocket side to `server`; returns its control and a `close()` for the server's own. */
export async function attachFixtureWebSocket(
  server: Server,
  options: FixtureWebSocketOptions,
  host: FixtureWebSocketHost,
): Promise<FixtureWebSocket & { close(): void }> {
  const specifier = 'ws';
  const module = (await import(specifier)) as { WebSocketServer: new (options: { noServer: true; autoPong: false }) => WsServer };
  const wss = new module.WebSocketServer({ noServer: true, autoPong: false });
  let answerPings = true;
  const sockets = new Set<WsSocket>();
  const live = new Map<number, LiveSubscription>();
  let nextId = 0;
  let upgrades = 0;
  let pings = 0;
  let silent = false;
  let upgrade: FixtureUpgradeMode = 'accept';
  let subscribeMode: FixtureSubscribeMode = 'answer';
  const late = new Set<TimerHandle>();
  let slot = options.startSlot ?? 1000;
  let ticker: TimerHandle | undefined;
  const period = options.slotIntervalMs ?? 400;

  const send = (socket: WsSocket, payload: unknown) => {
    // Exact: a test may notify u64 values above 2^53 as bigints (lamports, rentEpoch).
    if (socket.readyState === 1) socket.send(stringifyJson(payload));
  };
  const notifyOne = (sub: LiveSubscription, result: unknown) => {
    if (silent) return;
    send(sub.socket, { jsonrpc: '2.0', method: NOTIFICATION_OF[sub.method] ?? `${sub.method}Notification`, params: { subscription: subscriptionIdOf(sub), result } });
  };
  const subscriptionIdOf = (sub: LiveSubscription) => (sub.method === 'eth_subscribe' ? `0x${sub.id.toString(16)}` : sub.id);
  const tick = (by = 1) => {
    slot += by;
    for (const sub of live.values()) if (sub.method === 'slotSubscribe') notifyOne(sub, { parent: slot - 1, root: slot - 32, slot });
  };
  const arm = () => {
    if (period <= 0) return;
    ticker = host.clock.setTimer(() => {
      tick();
      arm();
    }, period);
  };
  arm();

  const onMessage = (socket: WsSocket, text: string) => {
    let call: { id?: unknown; method?: unknown; params?: unknown };
    try {
      call = JSON.parse(text) as typeof call;
    } catch {
      return send(socket, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    }
    const method = typeof call.method === 'string' ? call.method : '';
    const params = Array.isArray(call.params) ? (call.params as unknown[]) : [];
    host.log(method, call.params, call.id);
    const answer = (result: unknown) => send(socket, { jsonrpc: '2.0', id: call.id, result });
    if (method === 'eth_unsubscribe' || method.endsWith('Unsubscribe')) {
      const raw = params[0];
      const id = typeof raw === 'string' ? Number.parseInt(raw, 16) : Number(raw);
      const sub = live.get(id);
      const ok = sub !== undefined && sub.socket === socket;
      if (ok) live.delete(id);
      return answer(ok);
    }
    if (method === 'eth_subscribe' || method.endsWith('Subscribe')) {
      if (method === 'eth_subscribe' && typeof params[0] !== 'string') {
        return send(socket, { jsonrpc: '2.0', id: call.id, error: { code: -32602, message: 'invalid params' } });
      }
      if (subscribeMode === 'never') return;
      const confirm = () => {
        if (socket.readyState !== 1) return;
        const sub: LiveSubscription = { id: ++nextId, method, params, socket };
        live.set(sub.id, sub);
        answer(subscriptionIdOf(sub));
        if (subscribeMode === 'drop') socket.terminate();
      };
      if (typeof subscribeMode !== 'object') return confirm();
      const timer = host.clock.setTimer(() => {
        late.delete(timer);
        confirm();
      }, subscribeMode.delayMs);
      late.add(timer);
      return;
    }
    send(socket, { jsonrpc: '2.0', id: call.id, error: { code: -32601, message: 'Method not found' } });
  };

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    upgrades++;
    socket.on('error', () => undefined);
    if (upgrade === 'refuse') {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    if (upgrade !== 'accept') {
      const retry = upgrade.retryAfterSeconds === undefined ? '' : `retry-after: ${upgrade.retryAfterSeconds}\r\n`;
      socket.end(`HTTP/1.1 429 Too Many Requests\r\n${retry}connection: close\r\ncontent-length: 0\r\n\r\n`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.add(ws);
      ws.on('message', (data, isBinary) => {
        if (!isBinary) onMessage(ws, data.toString('utf8'));
      });
      ws.on('error', () => undefined);
      ws.on('ping', (data) => {
        pings++;
        if (answerPings && ws.readyState === 1) ws.pong(data);
      });
      ws.on('close', () => {
        sockets.delete(ws);
        for (const [id, sub] of live) if (sub.socket === ws) live.delete(id);
      });
    });
  });

  return {
    get connections() {
      return sockets.size;
    },
    get upgrades() {
      return upgrades;
    },
    get pings() {
      return pings;
    },
    get slot() {
      return slot;
    },
    subscriptions(method) {
      let n = 0;
      for (const sub of live.values()) if (method === undefined || sub.method === method) n++;
      return n;
    },
    tickSlot: tick,
    notify(subscribeMethod, result, match) {
      let sent = 0;
      for (const sub of [...live.values()]) {
        if (sub.method !== subscribeMethod || (match !== undefined && !match(sub.params))) continue;
        if (silent) continue;
        notifyOne(sub, result);
        sent++;
        if (sub.method === 'signatureSubscribe') live.delete(sub.id);
      }
      return sent;
    },
    drop() {
      for (const socket of [...sockets]) socket.terminate();
    },
    setSilent(value) {
      silent = value;
    },
    setUpgrade(mode) {
      upgrade = mode;
    },
    setSubscribeAnswer(mode) {
      subscribeMode = mode;
    },
    setAnswerPings(answer) {
      answerPings = answer;
    },
    sendUnknownNotification() {
      for (const socket of sockets) send(socket, { jsonrpc: '2.0', method: 'slotNotification', params: { subscription: 987654321, result: { slot: -1 } } });
    },
    sendGarbage() {
      for (const socket of sockets) {
        if (socket.readyState !== 1) continue;
        socket.send('not json at all');
        socket.send('[]');
        socket.send('42');
        socket.send(JSON.stringify({ jsonrpc: '2.0', id: 'nobody-asked', result: 1 }));
        socket.send(Buffer.from([0xde, 0xad, 0xbe, 0xef]));
      }
    },
    close() {
      ticker?.cancel();
      ticker = undefined;
      for (const timer of late) timer.cancel();
      late.clear();
      for (const socket of sockets) socket.terminate();
      sockets.clear();
      live.clear();
      wss.close();
    },
  };
}
