/**
 * The socket layer behind one small interface, so tests and browsers can supply their own.
 * Node uses `ws` (an optional peer, loaded with a dynamic import on the first subscription,
 * so the main entry never imports it) because it can send ping frames; elsewhere the global
 * WHATWG `WebSocket` (no pings: stream-silence detection still works).
 */

/** Why a socket could not open or stopped: never a message text (it could echo the URL). */
export type SocketFailure =
  | { readonly kind: 'rate-limited'; readonly status: number; readonly retryAfter: string | undefined }
  | { readonly kind: 'rejected'; readonly status: number }
  | { readonly kind: 'connection' };

/** What a socket reports. Each handler runs at most as documented; `onClose` runs exactly once. */
export interface SocketHandlers {
  onOpen(): void;
  onMessage(text: string): void;
  onPong(): void;
  /** The upgrade was refused or the connection failed (then `onClose` follows). */
  onFailure(failure: SocketFailure): void;
  onClose(): void;
}

/** One open (or opening) socket. */
export interface SubscriptionSocket {
  send(text: string): void;
  /** Sends a ping frame; absent when the runtime cannot (browsers). */
  readonly ping?: (() => void) | undefined;
  /** Closes (or aborts while opening); `onClose` follows. Idempotent. */
  close(): void;
}

/** What the pool asks of every socket it opens. */
export interface SocketOptions {
  /** Largest frame to accept, in bytes: a larger one closes the socket (with a `connection` failure) unread. */
  readonly maxFrameBytes: number;
}

/**
 * Opens a socket to `url` (may hold keys: never log it) with `headers` (ignored where the
 * runtime cannot send headers). A factory that ignores `options` leaves frames unbounded.
 */
export type SocketFactory = (url: string, headers: Readonly<Record<string, string>>, handlers: SocketHandlers, options?: SocketOptions) => SubscriptionSocket;

/** What the pool uses of a `ws` WebSocket. */
export interface WsLike {
  on(event: string, listener: (...args: never[]) => void): unknown;
  send(data: string): void;
  ping(): void;
  terminate(): void;
  readyState: number;
}
/** `ws`'s WebSocket class (the `WebSocket` export of the `ws` package), or one shaped like it. */
export type WsConstructor = new (url: string, options: Record<string, unknown>) => WsLike;

let wsModule: Promise<WsConstructor | undefined> | undefined;

/** `ws`'s WebSocket class, or undefined when the package is not installed. Imported once, lazily. */
function loadWs(): Promise<WsConstructor | undefined> {
  // A variable specifier keeps bundlers from pulling `ws` into a browser build.
  const specifier = 'ws';
  wsModule ??= import(specifier).then(
    (module: { WebSocket?: WsConstructor; default?: WsConstructor }) => module.WebSocket ?? module.default,
    () => undefined,
  );
  return wsModule;
}

/** A {@link SocketFactory} over `ws`: ping frames, custom headers, upgrade status codes. */
export function wsSocketFactory(WebSocketClass: WsConstructor): SocketFactory {
  return (url, headers, handlers, options) => {
    let closed = false;
    const finish = () => {
      if (closed) return;
      closed = true;
      handlers.onClose();
    };
    let socket: WsLike;
    try {
      // `maxPayload` makes `ws` close the socket (1009) as soon as a frame header announces more:
      // without it `ws` buffers up to 100 MiB per frame.
      const maxPayload = options?.maxFrameBytes;
      socket = new WebSocketClass(url, { headers, perMessageDeflate: false, followRedirects: false, handshakeTimeout: 30_000, ...(maxPayload === undefined ? {} : { maxPayload }) });
    } catch {
      handlers.onFailure({ kind: 'connection' });
      queueMicrotask(finish);
      return { send() {}, ping() {}, close() {} };
    }
    socket.on('open', () => handlers.onOpen());
    socket.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
      if (isBinary) return handlers.onMessage('');
      handlers.onMessage(Array.isArray(data) ? Buffer.concat(data).toString('utf8') : data.toString());
    });
    socket.on('pong', () => handlers.onPong());
    socket.on('unexpected-response', (_request: unknown, response: { statusCode?: number; headers: Record<string, string | undefined>; destroy?: () => void }) => {
      const status = response.statusCode ?? 0;
      handlers.onFailure(status === 429 ? { kind: 'rate-limited', status, retryAfter: response.headers['retry-after'] } : { kind: 'rejected', status });
      response.destroy?.();
      socket.terminate();
    });
    socket.on('error', () => handlers.onFailure({ kind: 'connection' }));
    socket.on('close', finish);
    return {
      send: (text) => {
        if (socket.readyState === 1) socket.send(text);
      },
      ping: () => {
        if (socket.readyState === 1) socket.ping();
      },
      close: () => socket.terminate(),
    };
  };
}

/** A {@link SocketFactory} over the WHATWG `WebSocket` (browsers, Deno, Bun): no pings, no headers, no status codes. */
export function webSocketFactory(WebSocketClass: typeof WebSocket): SocketFactory {
  return (url, _headers, handlers, options) => {
    let closed = false;
    const socket = new WebSocketClass(url);
    const maxFrameBytes = options?.maxFrameBytes ?? Number.POSITIVE_INFINITY;
    socket.onopen = () => handlers.onOpen();
    socket.onmessage = (event: MessageEvent) => {
      const text = typeof event.data === 'string' ? event.data : '';
      // The runtime has read the frame already; it is at least not handed on, and the node is left.
      if (text.length > maxFrameBytes) {
        handlers.onFailure({ kind: 'connection' });
        socket.close();
        return;
      }
      handlers.onMessage(text);
    };
    socket.onerror = () => handlers.onFailure({ kind: 'connection' });
    socket.onclose = () => {
      if (closed) return;
      closed = true;
      handlers.onClose();
    };
    return {
      send: (text) => {
        if (socket.readyState === 1) socket.send(text);
      },
      close: () => socket.close(),
    };
  };
}

/** The default factory: `ws` where it is installed, else the global `WebSocket`; undefined when neither exists. */
export async function defaultSocketFactory(): Promise<SocketFactory | undefined> {
  const Ws = await loadWs();
  if (Ws !== undefined) return wsSocketFactory(Ws);
  const Global = (globalThis as { WebSocket?: typeof WebSocket }).WebSocket;
  return Global === undefined ? undefined : webSocketFactory(Global);
}
