/**
 * Pool errors in the JSON-RPC error shape the host libraries understand.
 *
 * A node's own JSON-RPC error (`RPC_ERROR`) keeps the node's `code`, `message` and `data`, so
 * viem builds its `RpcError` subclasses, ethers its coded errors and kit its `SolanaError`s
 * exactly as if the node had answered directly. Every other pool failure (ambiguous
 * dispatch, deadline, exhausted retries, rate limits, …) becomes one stable code,
 * {@link POOL_FAILURE_RPC_CODE}, with `data.sturdyCode` naming the `TransportError` code
 * (`INVALID_INPUT`, which sent nothing, is the standard -32602 "Invalid params" instead).
 */
import type { TransportErrorCode } from '../errors/codes.js';
import { TransportError } from '../errors/transport-error.js';
import type { JsonRpcErrorObject } from '../jsonrpc/envelope.js';

/**
 * The JSON-RPC error code of every pool failure that is not a node's own error: 4900,
 * EIP-1193 "Disconnected" (no node gave a definitive answer). Chosen over `-32603`
 * because viem's request wrapper retries `-32603`, `-32005`, `429`, `-32007` and every
 * code it does not know (mapped to `-1`) — and the pool has already retried whatever was
 * safe to retry; an `AMBIGUOUS_DISPATCH` send must not be sent again by anyone. viem maps
 * 4900 to `ProviderDisconnectedError`, which it never retries. It is outside the ranges
 * Solana (-32001…-32016) and EIP-1474 (-32000…-32006) assign meanings to.
 */
export const POOL_FAILURE_RPC_CODE = 4900;

/** JSON-RPC "Invalid params": the pool refused the call's input (`INVALID_INPUT`) before sending anything. */
export const INVALID_PARAMS_RPC_CODE = -32602;

/** `data` of a {@link POOL_FAILURE_RPC_CODE} error. */
export interface PoolFailureData {
  /** The `TransportError` code, e.g. `AMBIGUOUS_DISPATCH` (the call may have reached a node). */
  readonly sturdyCode: TransportErrorCode;
  /** For an ambiguous Solana `sendTransaction`: the transaction signature, to reconcile with `getSignatureStatuses`. */
  readonly signature?: string;
  /** For an ambiguous EVM `eth_sendRawTransaction`: the transaction hash, to reconcile with `eth_getTransactionReceipt`. */
  readonly transactionHash?: string;
}

/**
 * The JSON-RPC error object for a failed pool call: the node's error for `RPC_ERROR`,
 * {@link INVALID_PARAMS_RPC_CODE} for `INVALID_INPUT`, else {@link POOL_FAILURE_RPC_CODE};
 * both with {@link PoolFailureData} and a message led by the `TransportError` code. Messages
 * name endpoint ids only (the pool redacts them), never a URL or key.
 */
export function toJsonRpcError(error: unknown): JsonRpcErrorObject {
  if (!(error instanceof TransportError)) {
    // The pool only rejects with TransportError; another requester's error is reported without
    // its text (it may hold a URL), under the code no library retries: it may have been sent.
    return { code: POOL_FAILURE_RPC_CODE, message: 'Internal error: the requester failed without a TransportError' };
  }
  if (error.code === 'RPC_ERROR' && error.rpcCode !== undefined) {
    return { code: error.rpcCode, message: error.rpcMessage ?? '', ...(error.rpcData === undefined ? {} : { data: error.rpcData }) };
  }
  const data: PoolFailureData = {
    sturdyCode: error.code,
    ...(error.signature === undefined ? {} : { signature: error.signature }),
    ...(error.transactionHash === undefined ? {} : { transactionHash: error.transactionHash }),
  };
  // Bad params never left the process: the standard "Invalid params", which no library retries.
  // The code and the transaction's id lead the message: some libraries keep only the message
  // (web3.js v1's SendTransactionError), and viem shows it as the `details` of its own class.
  const id = error.transactionHash !== undefined ? `transactionHash ${error.transactionHash}` : error.signature !== undefined ? `signature ${error.signature}` : undefined;
  const message = `${error.code}${id === undefined ? '' : ` (${id})`}: ${error.message}`;
  return { code: error.code === 'INVALID_INPUT' ? INVALID_PARAMS_RPC_CODE : POOL_FAILURE_RPC_CODE, message, data };
}

/**
 * An `Error` carrying a JSON-RPC error object (`code`, `data`) — what an EIP-1193
 * provider throws — with the pool's `TransportError` as `cause`, so every attempt stays
 * reachable (viem's `error.walk()`, or {@link findTransportError}).
 */
export class PoolRpcError extends Error {
  override readonly name = 'PoolRpcError';
  readonly code: number;
  readonly data: unknown;
  override readonly cause: TransportError | undefined;

  constructor(error: unknown) {
    const object = toJsonRpcError(error);
    super(object.message || 'JSON-RPC error', { cause: error });
    this.code = object.code;
    this.data = object.data;
    this.cause = error instanceof TransportError ? error : undefined;
  }
}

/**
 * The `TransportError` behind an error thrown by a host library (viem wraps ours in its
 * `RpcError` subclasses), found by walking the `cause` chain; optionally only one of `code`.
 *
 * ```ts
 * const ambiguous = findTransportError(error, 'AMBIGUOUS_DISPATCH');
 * if (ambiguous) await reconcile(ambiguous.signature);
 * ```
 */
export function findTransportError<C extends TransportErrorCode>(error: unknown, code?: C): TransportError<C> | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 16 && typeof current === 'object' && current !== null; depth++) {
    if (current instanceof TransportError) {
      return code === undefined || current.code === code ? (current as TransportError<C>) : undefined;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
