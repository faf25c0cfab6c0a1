import { sleep, type Clock } from '../clock.js';
import type { HttpTransportPoolOptions } from '../config/types.js';
import { isTransportError } from '../errors/transport-error.js';
import type { SentTransactionId } from '../jsonrpc/answer-ids.js';

/** How `reconcileSends` looks up an ambiguous send. */
export interface ReconcileSettings {
  /** Longest time spent looking, in ms (never past the call's deadline). */
  readonly windowMs: number;
  /** Pause between two lookups, in ms. */
  readonly intervalMs: number;
}

export const DEFAULT_RECONCILE: ReconcileSettings = { windowMs: 3_000, intervalMs: 500 };

/** The `reconcileSends` option resolved: undefined when off. */
export function reconcileSettingsOf(option: HttpTransportPoolOptions['reconcileSends']): ReconcileSettings | undefined {
  if (option === undefined || option === false) return undefined;
  if (option === true) return DEFAULT_RECONCILE;
  return { windowMs: option.windowMs ?? DEFAULT_RECONCILE.windowMs, intervalMs: option.intervalMs ?? DEFAULT_RECONCILE.intervalMs };
}


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

/**
 * The lookup for a send, from the id the call computed from its bytes (`CallContext`), or
 * undefined for methods (or params) the pool cannot look up.
 */
export function sendLookupOf(method: string, id: SentTransactionId | undefined): SendLookup | undefined {
  if (id === undefined) return undefined;
  if (method === 'sendTransaction' && id.field === 'signature') {
    const signature = id.value;
    return {
      transactionId: signature,
      method: 'getSignatureStatuses',
      // Recent statuses only: the transaction was sent a moment ago.
      params: [[signature], { searchTransactionHistory: false }],
      found: (result) => isObject(result) && Array.isArray(result['value']) && isObject(result['value'][0]),
    };
  }
  if (method === 'eth_sendRawTransaction' && id.field === 'transactionHash') {
    const hash = id.value;
    return { transactionId: hash, method: 'eth_getTransactionByHash', params: [hash], found: (result) => isObject(result) };
  }
  return undefined;
}

/**
 * Looks an ambiguous send up until it is found, the window or the deadline ends, or
 * `signal` aborts (the caller's signal, or pool.close()). Never sends the transaction again:
 * only reads go out, at the start of the window and then every `intervalMs` while the
 * window lasts. A lookup that fails counts as "not found yet"; one that no endpoint can
 * ever serve (`NO_ENDPOINT`, `CHAIN_MISMATCH`, `POOL_CLOSED`) ends the search. `lookups`
 * counts the lookups that were made.
 */
export async function lookUpSend(
  lookup: SendLookup,
  read: (timeoutMs: number) => Promise<unknown>,
  clock: Clock,
  settings: ReconcileSettings,
  deadlineMs: number,
  signal: AbortSignal,
): Promise<{ readonly found: boolean; readonly lookups: number }> {
  const untilMs = Math.min(clock.now() + settings.windowMs, deadlineMs);
  let lookups = 0;
  for (;;) {
    const remainingMs = untilMs - clock.now();
    if (remainingMs <= 0 || signal.aborted) return { found: false, lookups };
    try {
      lookups++;
      if (lookup.found(await read(remainingMs))) return { found: true, lookups };
    } catch (error) {
      if (isTransportError(error) && NEVER_SERVED.has(error.code)) return { found: false, lookups: lookups - 1 };
      // Otherwise not found yet, as far as we can tell; the next lookup may reach a healthier node.
    }
    // The next lookup only if it can start inside the window.
    if (clock.now() + settings.intervalMs >= untilMs) return { found: false, lookups };
    try {
      await sleep(clock, settings.intervalMs, signal);
    } catch {
      return { found: false, lookups };
    }
  }
}

/** Lookup failures that say no lookup can be served at all. */
const NEVER_SERVED: ReadonlySet<string> = new Set(['NO_ENDPOINT', 'CHAIN_MISMATCH', 'POOL_CLOSED']);
