import type { BatchCall, BatchItemResult, BatchOptions } from '../batch/types.js';
import type { MethodClassification } from '../config/types.js';
import type { RequestKind, RetryClass } from '../retry/causes.js';
import type { ConsensusOptions } from '../consensus/types.js';

export type { ConsensusOptions } from '../consensus/types.js';

/** Options of one `pool.request(...)` call. */
export interface RequestOptions {
  /** Deadline for the whole call (admission, every attempt and backoff), in ms. @default the pool's `timeoutMs`: the largest `requestTimeoutMs` of the endpoints serving the kind plus the smallest */
  readonly timeoutMs?: number | undefined;
  /** Cancels the call; the error is `ABORTED`. */
  readonly signal?: AbortSignal | undefined;
  /** Pin the call to one endpoint id (never filtered away by reputation or the cap). */
  readonly endpoint?: string | undefined;
  /** Override the request kind from the method table. */
  readonly kind?: RequestKind | undefined;
  /** Override the retry class from the method table. */
  readonly retryClass?: RetryClass | undefined;
  /**
   * Share the request of an identical idempotent read already in flight (same method,
   * params, pin and `timeoutMs`). `false`: this call sends its own. @default the pool's `coalesce` (true)
   */
  readonly coalesce?: boolean | undefined;
  /**
   * Ask this read of `operators` distinct operators and answer only with what they agree on
   * (same value and context, within the method's honest drift); a disagreement asks one more
   * operator when the retry budget allows, else fails `CONSENSUS_FAILED`. Reads only: on a
   * send or a pinned call it is `INVALID_INPUT`. `false`: none, whatever the method table says.
   * @default the method table's (`methods[method].consensus`), else none
   */
  readonly consensus?: ConsensusOptions | false | undefined;
  /**
   * Only endpoints whose known head (EVM block, Solana slot) is at or past this one take the
   * call: what a session sends for a read its floor constrains. With no endpoint known to have
   * reached it the call fails at once (`NO_ENDPOINT`, nothing sent); a session then waits. Not
   * for pinned calls. @default none
   */
  readonly minHead?: bigint | undefined;
}

/** Options of `requestWithOrigin`: a call's options plus the operators whose endpoints must not answer it. */
export interface OriginRequestOptions extends RequestOptions {
  /** Operators (registrable domains, or the endpoints' `operator`) not to ask: a second opinion must come from someone else. @default none */
  readonly excludeOperators?: readonly string[] | undefined;
}

/** One call's result and who gave it (endpoint id and operator only, never a URL). */
export interface OriginatedAnswer {
  readonly value: unknown;
  readonly endpointId: string;
  readonly operator: string;
}

/** What a head counts: Solana slots, EVM block numbers. */
export type HeadKind = 'slot' | 'block';

/**
 * Anything that can make a JSON-RPC call: `HttpTransportPool` implements it, and the
 * typed Solana/EVM clients accept it (so tests can pass a stub).
 */
export interface RpcRequester {
  request(method: string, params: readonly unknown[], options?: RequestOptions): Promise<unknown>;
  /** How this requester classifies a method (its method table plus the user's `methods`), when it can tell. */
  classifyMethod?(method: string): MethodClassification;
  /** Sends calls as JSON-RPC batches with per-item results, when the requester can (adapters use it for batches). */
  batch?(calls: readonly BatchCall[], options?: BatchOptions): Promise<BatchItemResult[]>;
  /**
   * One call answered by one endpoint, saying which (and never one of `excludeOperators`'):
   * how proofs of absence and expiry get a second operator's word. A requester without it
   * can prove no expiry (`waitForSignature` and `sendAndWait` then end `unknown`, never `expired`).
   */
  requestWithOrigin?(method: string, params: readonly unknown[], options?: OriginRequestOptions): Promise<OriginatedAnswer>;
  /**
   * The highest head of `kind` that at least two operators' endpoints have reported, never
   * above the pool's reference tip; undefined until two operators have (a pool of one
   * operator: that operator's highest head). What `sendAndWait` counts confirmations
   * against instead of one node's `eth_blockNumber`.
   */
  trustedHead?(kind: HeadKind): bigint | undefined;
}
