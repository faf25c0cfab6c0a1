/**
 * What the pool checks answers against, without the hashing that computes a send's id
 * (`transaction-id.ts`, loaded on a send's first call: a page that sends nothing does not
 * carry keccak-256 or the wire decoders): the id types, the answer checks, the lookup ids.
 */

/** The id of the transaction a send call carries, computed locally from its bytes. */
export type SentTransactionId =
  | { readonly field: 'signature'; readonly value: string }
  | { readonly field: 'transactionHash'; readonly value: string };

/** True when a send's `result` is its transaction's id (EVM hex compared without case). */
export function isSentTransactionId(id: SentTransactionId, result: unknown): boolean {
  if (typeof result !== 'string') return false;
  return id.field === 'signature' ? result === id.value : result.toLowerCase() === id.value;
}

/**
 * The transaction a lookup asks about, read from its params, so that an answer about
 * another one is caught where answers are classified: a receipt or transaction whose hash is
 * not the one asked for is a lie (a stale cache, a mix-up of ids), not evidence — it is
 * `invalid-response`, retried on another endpoint, and counts against the node.
 */
/** The field an answer must carry the asked hash in, and that hash (lowercase). */
export interface LookupId {
  readonly field: 'transactionHash' | 'hash';
  readonly value: string;
}

const LOOKUP_HASH = /^0x[0-9a-fA-F]{64}$/;

/** `eth_getTransactionReceipt` → `transactionHash`, `eth_getTransactionByHash` → `hash`; undefined for other calls. */
export function lookupIdOf(method: string, params: readonly unknown[]): LookupId | undefined {
  const field = method === 'eth_getTransactionReceipt' ? 'transactionHash' : method === 'eth_getTransactionByHash' ? 'hash' : undefined;
  const hash = params[0];
  if (field === undefined || typeof hash !== 'string' || !LOOKUP_HASH.test(hash)) return undefined;
  return { field, value: hash.toLowerCase() };
}

/** True when `result` is "not found" (null) or an object about the asked transaction. */
export function isAnswerAbout(id: LookupId, result: unknown): boolean {
  if (result === null) return true;
  if (typeof result !== 'object') return false;
  const hash = (result as Record<string, unknown>)[id.field];
  return typeof hash === 'string' && hash.toLowerCase() === id.value;
}
