/**
 * What the pool checks answers against, without the hashing that computes a send's id
 * (`transaction-id.ts`, loaded on a send's first call: a page that sends nothing does not
 * carry keccak-256 or the wire decoders): the id types and the send answer's check. (A lookup's
 * answer is checked by the integrity table, `src/integrity/`.)
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
