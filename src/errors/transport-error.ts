import type { DispatchState, FailureCause, RequestKind } from '../retry/causes.js';
import type { TransportErrorCode } from './codes.js';
import type { WaitingFor } from './waiting-for.js';

/** One attempt of a call, as carried by errors and events. Never contains a URL. */
export interface AttemptRecord {
  readonly endpointId: string;
  readonly cause: FailureCause | undefined;
  readonly dispatch: DispatchState;
  readonly status: number | undefined;
  readonly rpcCode: number | undefined;
  readonly durationMs: number;
}

export interface ConfigIssue {
  /** Field path in the config, e.g. `endpoints[2].requestsPerSecond`. */
  readonly path: string;
  readonly message: string;
}

/** The typed context of each error code. */
export interface TransportErrorContextByCode {
  INVALID_CONFIG: { readonly issues: readonly ConfigIssue[] };
  INVALID_INPUT: { readonly field: string };
  /** `minHead`: no endpoint is known to have reached the call's `minHead` (decimal) — a session waits for one. */
  NO_ENDPOINT: { readonly kind: RequestKind; readonly pinnedEndpoint?: string; readonly minHead?: string };
  DEADLINE_EXCEEDED: {
    readonly timeoutMs: number;
    /**
     * When the call ran out of time waiting for an endpoint to admit it: every candidate and
     * what kept it out (`chain-check` with the last check's failure, `benched`, `breaker`,
     * `cooldown`, …). Absent when the time ran out during an attempt.
     */
    readonly waitingFor?: readonly WaitingFor[];
  };
  ABORTED: Record<string, never>;
  RATE_LIMITED: { readonly retryAfterMs?: number };
  /** Every endpoint that could take the call has spent its month's credits (`plan.onExhausted: 'refuse'`); nothing was sent. */
  BUDGET_EXHAUSTED: { readonly endpointIds: readonly string[]; readonly waitingFor: readonly WaitingFor[] };
  RETRIES_EXHAUSTED: { readonly lastCause: FailureCause | undefined };
  AMBIGUOUS_DISPATCH: {
    /** Solana: the transaction's signature (its id), read from the wire bytes. */
    readonly signature?: string;
    /** EVM: the transaction's hash, keccak-256 of the signed bytes. */
    readonly transactionHash?: string;
    /** With `reconcileSends`: how many lookups ran without finding the transaction. */
    readonly lookups?: number;
    /**
     * What the last attempt got instead of a usable answer: a transport failure after the
     * write (`socket-after-write`, `attempt-timeout`, …), an unusable body (`html`,
     * `truncated`, `empty-result`, `send-result-mismatch` when the node answered another
     * transaction's id), or `cancelled-after-write`.
     */
    readonly reason?: string;
  };
  RPC_ERROR: { readonly rpcCode: number; readonly rpcMessage: string; readonly rpcData?: unknown };
  INVALID_RESPONSE: {
    readonly reason: string;
    /** With reason `integrity`: the check the answer failed (`block-number`, `log-topics`, `min-context-slot`, …). */
    readonly check?: string;
  };
  HTTP_ERROR: { readonly status: number };
  POOL_CLOSED: Record<string, never>;
  /** Every endpoint that could take the call (or the pinned one) reported another chain than `expectedChain`. */
  CHAIN_MISMATCH: { readonly kind: RequestKind; readonly expected: string; readonly pinnedEndpoint?: string };
  /**
   * A subscription could not be opened: `no-ws-endpoint` (no endpoint has a WebSocket URL,
   * or every one is on another chain), `no-socket` (neither `ws` nor a global `WebSocket`),
   * `rpc-error` (the node refused the subscribe call: `rpcCode`/`rpcMessage`), `timeout`
   * (no node confirmed it within `timeoutMs`; `lastFailure` says what the last try met),
   * `unsupported` (a chain client over a requester that cannot subscribe), `load-failed` (the
   * subscription code, fetched on the first `subscribe()`, did not load: the next call tries again).
   */
  SUBSCRIPTION_FAILED: {
    readonly method: string;
    readonly reason: 'no-ws-endpoint' | 'no-socket' | 'rpc-error' | 'timeout' | 'unsupported' | 'load-failed';
    readonly rpcCode?: number;
    readonly rpcMessage?: string;
    readonly lastFailure?: string;
  };
  /** The subscription ended (closed, aborted, or the pool closed) before what was awaited on it arrived. */
  SUBSCRIPTION_CLOSED: { readonly method: string };
  /** Overflow policy `error`: the caller read too slowly and `bufferSize` items (or `bufferBytes` bytes) were waiting. */
  SUBSCRIPTION_OVERFLOW: { readonly method: string; readonly bufferSize: number; readonly bufferBytes?: number };
  /**
   * `getLogs` cannot fit the provider's `eth_getLogs` limit: `max-parts` (the blocks left would
   * need more than `maxParts` requests at the span `maxBlockRange` the provider allows; nothing
   * more was sent), or `single-block` (the provider refused one block alone; its refusal is the
   * `cause`). Block numbers are decimal strings (exact past 2^53, and JSON-safe).
   */
  LOG_RANGE_LIMIT: {
    readonly reason: 'max-parts' | 'single-block';
    readonly fromBlock: string;
    readonly toBlock: string;
    readonly maxParts: number;
    readonly maxBlockRange?: string;
  };
  /**
   * Code the pool fetches on first use did not load (a browser page offline, a chunk missing):
   * `transaction-id`, what computes a send's id before it goes out. Nothing was sent; the next
   * call loads again.
   */
  LOAD_FAILED: { readonly module: 'transaction-id' };
  /**
   * A consensus read (`consensus: { operators }`) found no `operators` agreeing answers:
   * `disagreement` (and no budget or operator left to ask one more), `too-few-answers` (the
   * others failed), `too-few-operators` (fewer can take the call now: nothing was sent).
   * `answers` says which endpoint gave which answer class (`a`, `b`, …), never a value.
   */
  CONSENSUS_FAILED: {
    readonly operators: number;
    readonly reason: 'disagreement' | 'too-few-answers' | 'too-few-operators';
    readonly answers: readonly { readonly endpointId: string; readonly answerClass: string }[];
  };
}

export interface TransportErrorOptions<C extends TransportErrorCode> {
  readonly context: TransportErrorContextByCode[C];
  readonly cause?: unknown;
  readonly method?: string | undefined;
  readonly endpointId?: string | undefined;
  readonly attempts?: readonly AttemptRecord[] | undefined;
}

const BRAND = Symbol.for('sturdy-rpc.TransportError');

/**
 * The one error class of sturdy-rpc. `code` is stable; `context` is typed per code.
 * Messages, context and attempts name endpoints by id only — never a URL, header or key.
 * `instanceof` and {@link isTransportError} work across two installed copies of the package.
 */
export class TransportError<C extends TransportErrorCode = TransportErrorCode> extends Error {
  override readonly name = 'TransportError';
  readonly code: C;
  readonly context: TransportErrorContextByCode[C];
  readonly method: string | undefined;
  readonly endpointId: string | undefined;
  readonly attempts: readonly AttemptRecord[];
  /**
   * Shortcut for `AMBIGUOUS_DISPATCH` (`context.signature`): the Solana transaction
   * signature, when known. Look it up with `getSignatureStatuses` before deciding to resend.
   */
  readonly signature: string | undefined;
  /**
   * Shortcut for `AMBIGUOUS_DISPATCH` (`context.transactionHash`): the EVM transaction hash
   * (keccak-256 of the signed bytes), when known. Look it up with
   * `eth_getTransactionReceipt` / `eth_getTransactionByHash` before deciding to resend.
   */
  readonly transactionHash: string | undefined;
  /** Shortcuts for `RPC_ERROR`. */
  readonly rpcCode: number | undefined;
  readonly rpcMessage: string | undefined;
  readonly rpcData: unknown;

  constructor(code: C, message: string, options: TransportErrorOptions<C>) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.context = options.context;
    this.method = options.method;
    this.endpointId = options.endpointId;
    this.attempts = options.attempts ?? [];
    const ctx = options.context as Partial<TransportErrorContextByCode['RPC_ERROR'] & TransportErrorContextByCode['AMBIGUOUS_DISPATCH']>;
    this.signature = ctx.signature;
    this.transactionHash = ctx.transactionHash;
    this.rpcCode = ctx.rpcCode;
    this.rpcMessage = ctx.rpcMessage;
    this.rpcData = ctx.rpcData;
    Object.defineProperty(this, BRAND, { value: true });
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }
}

/**
 * Narrows `error` to a {@link TransportError}, optionally of one `code`.
 *
 * ```ts
 * if (isTransportError(e, 'AMBIGUOUS_DISPATCH')) await reconcile(e.signature);
 * ```
 */
/** The error of any call, permit, subscription or status server asked of a closed pool. */
export function poolClosedError(): TransportError<'POOL_CLOSED'> {
  return new TransportError('POOL_CLOSED', 'The pool was closed', { context: {} });
}

export function isTransportError<C extends TransportErrorCode = TransportErrorCode>(
  error: unknown,
  code?: C,
): error is TransportError<C> {
  return error instanceof TransportError && (code === undefined || error.code === code);
}
