import { isTransportError } from '../errors/transport-error.js';

/** JSON-RPC error code of Solana's "Node is behind by N slots" / "Node is unhealthy". */
export const SOLANA_NODE_UNHEALTHY = -32005;

/** Result of `getHealth`: an unhealthy node is an answer, not an error. */
export type GetHealthReturnType =
  | { readonly healthy: true }
  | {
      readonly healthy: false;
      /** From the node's `data.numSlotsBehind`; absent when the node reports null or nothing. */
      readonly numSlotsBehind?: number;
      /** The node's message (redacted by the pool), e.g. `Node is behind by 42 slots`. */
      readonly message: string;
    };

const MAX_CAUSE_DEPTH = 8;

/**
 * Reads a node-unhealthy answer out of a failed call, or `undefined` when `error` is some
 * other failure. Accepts an `RPC_ERROR` with `rpcCode` -32005 anywhere in the `cause`
 * chain (that one carries the node's message and data), else any `TransportError` whose
 * last attempt ended with rpc code -32005 (e.g. the pool retried the refusal elsewhere and
 * gave up with `RETRIES_EXHAUSTED`).
 */
export function unhealthyAnswerOf(error: unknown): GetHealthReturnType | undefined {
  if (!isTransportError(error)) return undefined;
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && isTransportError(current); depth++) {
    if (current.rpcCode === SOLANA_NODE_UNHEALTHY) return unhealthy(current.rpcMessage, current.rpcData);
    current = current.cause;
  }
  if (error.attempts.at(-1)?.rpcCode === SOLANA_NODE_UNHEALTHY) return unhealthy(error.rpcMessage, error.rpcData);
  return undefined;
}

function unhealthy(rpcMessage: string | undefined, rpcData: unknown): GetHealthReturnType {
  const message = typeof rpcMessage === 'string' && rpcMessage.length > 0 ? rpcMessage : 'Node is unhealthy';
  const numSlotsBehind = slotsBehindOf(rpcData);
  return numSlotsBehind === undefined ? { healthy: false, message } : { healthy: false, numSlotsBehind, message };
}

function slotsBehindOf(data: unknown): number | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const value = (data as { readonly numSlotsBehind?: unknown }).numSlotsBehind;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  if (typeof value === 'bigint' && value >= 0n && value <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(value);
  return undefined;
}
