/**
 * Which calls carry a transaction id the pool computes from their bytes, and the shape of the
 * reader that computes it (`send-ids.ts` in Node, `send-ids.browser.ts` in the browser build).
 */
import type { MethodClassification } from '../config/types.js';
import type { SentTransactionId } from '../jsonrpc/answer-ids.js';

/** Reads the id of a send from its method and params (`sentTransactionIdOf`). */
export type SendIdReader = (method: string, params: readonly unknown[]) => SentTransactionId | undefined;

/** The only methods an id can be read from (`sentTransactionIdOf`). */
const SEND_METHODS: ReadonlySet<string> = new Set(['sendTransaction', 'eth_sendRawTransaction']);

/** Calls whose id the pool computes: the two send methods, when they are never resent after dispatch. */
export function needsSendId(method: string, retryClass: MethodClassification['retryClass']): boolean {
  return retryClass === 'never-after-dispatch' && SEND_METHODS.has(method);
}
