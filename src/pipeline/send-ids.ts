/**
 * The send-id reader in Node: imported statically, so a send computes its id at once. The
 * browser build replaces this module by `send-ids.browser.ts`, which loads the hashing on the
 * first send (a page that never sends does not carry keccak-256 and the wire decoders).
 */
import { sentTransactionIdOf } from '../jsonrpc/transaction-id.js';
import type { SendIdReader } from './send-id-rules.js';

/** The reader (a promise only in the browser build, until its first load). */
export function sendIdReader(): SendIdReader | Promise<SendIdReader> {
  return sentTransactionIdOf;
}
