import { sleep, type Clock } from '../clock.js';
import { evmTransactionHashFromSendParams, solanaSignatureFromSendParams } from '../jsonrpc/transaction-id.js';

/** How `reconcileSends` looks up an ambiguous send. */
export interface ReconcileSettings {
  /** Longest time spent looking, in ms (never past the call's deadline). */
  readonly windowMs: number;
  /** Pause between two lookups, in ms. */
  readonly intervalMs: number;
}

export const DEFAULT_RECONCILE: ReconcileSettings = { windowMs: 3_000, intervalMs: 500 };

/** A send the pool knows how to look up: its transaction id, and the read that finds it. */
export interface SendLookup {
  /** What the node would have answered: the Solana signature or the EVM transaction hash. */
  readonly transactionId: string;
  readonly method: string;
  readonly params: readonly unknown[];
  /** True when the lookup's result says the network knows the transaction. */
  readonly found: (result: unknown) => boolean;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** The lookup for a send, or undefined for methods (or params) the pool cannot look up. */
export function sendLookupOf(method: string, params: readonly unknown[]): SendLookup | undefined {
  if (method === 'sendTransaction') {
    const signature = solanaSignatureFromSendParams(params);
    if (signature === undefined) return undefined;
    return {
      transactionId: signature,
      method: 'getSignatureStatuses',
      // Recent statuses only: the transaction was sent a moment ago.
      params: [[signature], { searchTransactionHistory: false }],
      found: (result) => isObject(result) && Array.isArray(result['value']) && isObject(result['value'][0]),
    };
  }
  if (method === 'eth_sendRawTransaction') {
    const hash = evmTransactionHashFromSendParams(params);
    if (hash === undefined) return undefined;
    return { transactionId: hash, method: 'eth_getTransactionByHash', params: [hash], found: (result) => isObject(result) };
  }
  return undefined;
}

/**
 * Looks an ambiguous send up until it is found, the window or the deadline ends, or the
 * caller aborts. Never sends the transaction again: only reads go out. A lookup that fails
 * counts as "not found yet". Resolves with the number of lookups and whether one found it.
 */
export async function lookUpSend(
  lookup: SendLookup,
  read: (timeoutMs: number) => Promise<unknown>,
  clock: Clock,
  settings: ReconcileSettings,
  deadlineMs: number,
  signal: AbortSignal | undefined,
): Promise<{ readonly found: boolean; readonly lookups: number }> {
  const untilMs = Math.min(clock.now() + settings.windowMs, deadlineMs);
  let lookups = 0;
  for (;;) {
    const remainingMs = untilMs - clock.now();
    if (remainingMs <= 0 || signal?.aborted) return { found: false, lookups };
    lookups++;
    try {
      if (lookup.found(await read(remainingMs))) return { found: true, lookups };
    } catch {
      // Not found yet, as far as we can tell; the next lookup may reach a healthier node.
    }
    const pauseMs = Math.min(settings.intervalMs, untilMs - clock.now());
    if (pauseMs <= 0) return { found: false, lookups };
    try {
      await sleep(clock, pauseMs, signal);
    } catch {
      return { found: false, lookups };
    }
  }
}
