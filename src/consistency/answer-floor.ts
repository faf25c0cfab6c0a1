/**
 * What an answer proves the chain has reached, for a session's floor: the head-bearing
 * answers the pool already reads heads from (Solana `context.slot` and `getSlot`, EVM
 * `eth_blockNumber` and the latest block), and on EVM the block of a receipt or of any
 * fetched block (that block exists, so no later read may be older). Pure; reads a property
 * or two and allocates nothing for answers that prove nothing.
 */
import type { HeadKind } from '../api/request-options.js';
import { headOfAnswer, headValue, isHeadValue, provenBlockOf } from '../health/head-of.js';

/** A floor an answer proves: of which quantity, and the value. */
export interface ProvenHead {
  readonly kind: HeadKind;
  readonly value: bigint;
}

/** The head `result` (the answer to `method`) proves, or undefined. */
export function provenHeadOf(method: string, params: readonly unknown[], result: unknown): ProvenHead | undefined {
  const head = headOfAnswer(method, params, result);
  if (head !== undefined) return isHeadValue(head.raw) ? { kind: head.quantity, value: headValue(head.raw) } : undefined;
  const raw = typeof result === 'object' && result !== null ? provenBlockOf(method, result) : undefined;
  return raw === undefined ? undefined : { kind: 'block', value: BigInt(raw) };
}
