import type { Cancellation } from './attempt-abort.js';

/**
 * The executor contract: how one attempt's bytes reach one endpoint. Deliberately small
 * (like @solana/kit's `RpcTransport`), so tests, adapters and other runtimes plug in.
 * The pool owns timing: it aborts `signal` when the caller aborts or the attempt's time
 * is up, and tells the two apart itself.
 */

/** Where an attempt goes. Internal: contains the URL and headers, never logged or exposed. */
export interface ExecutorTarget {
  readonly endpointId: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Connections the executor may open to this origin: the sum of `maxConcurrentRequests` of every endpoint on it (undefined = unlimited). */
  readonly maxConnections: number | undefined;
}

export interface ExecuteRequest {
  readonly target: ExecutorTarget;
  /** The serialized JSON-RPC request body. */
  readonly body: string;
  /** Aborted by the pool on caller abort or when the attempt's time is up. */
  readonly signal: AbortSignal;
  /**
   * The same cancellation as `signal`, as cheap hooks. When present, prefer it: the pool
   * then never has to create an AbortSignal (subscribing to a fresh one costs ~10 µs on
   * Node 20); the pool's `signal` is created lazily on first read.
   */
  readonly cancellation?: Cancellation;
  /** Bound on the decoded response body; exceeding it yields `too-large`. */
  readonly maxResponseBytes: number;
  /**
   * True for calls that must never be sent twice once written (`never-after-dispatch`):
   * the executor should avoid sockets likely to be closing (long-idle keep-alive sockets).
   */
  readonly avoidStaleSockets: boolean;
}

/** Failure kinds an executor reports; the pool's classifier maps them to causes. */
export type ExecutorErrorKind =
  /** DNS failure, connection refused, connect/TLS timeout. */
  | 'connect'
  /** Socket reset or closed by the other side. */
  | 'socket'
  /** `signal` was aborted (the pool knows whether by the caller or by the deadline). */
  | 'aborted'
  /** Decoded body exceeded `maxResponseBytes`. */
  | 'too-large'
  /** Body could not be decoded (bad gzip/br stream). */
  | 'decode'
  /** Anything else. */
  | 'other';

export type RawOutcome =
  | {
      readonly type: 'response';
      readonly status: number;
      /** Header names lower-cased. */
      readonly headers: Readonly<Record<string, string>>;
      /** The decoded (decompressed) body as UTF-8 text. */
      readonly body: string;
    }
  | {
      readonly type: 'error';
      readonly kind: ExecutorErrorKind;
      /**
       * Whether the request may have been written: for the undici executor, whether
       * undici's `onRequestStart` ran for this attempt. Never derived from error codes alone.
       */
      readonly dispatched: boolean;
      /** Status code when response headers had arrived before the failure. */
      readonly status?: number;
      /** Lower-level error code, e.g. `ECONNRESET`, `UND_ERR_SOCKET` (diagnostics only). */
      readonly code?: string;
      /** The underlying error (kept as `cause`; must not be formatted into messages). */
      readonly error?: unknown;
    };

export interface HttpExecutor {
  execute(request: ExecuteRequest): Promise<RawOutcome>;
  /** Closes every connection. Called by `pool.close()`. */
  close(): Promise<void>;
}
