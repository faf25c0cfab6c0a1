import type { SolanaCommitment } from './inputs.js';
import type { SignatureStatus } from './transaction-schemas.js';
import { pollIntervalMs, type PollSchedule } from '../retry/poll-schedule.js';

/**
 * Pure decisions of waiting for a signature: when a status satisfies a commitment, how
 * long to wait between polls, and when an expiry is proven. The effects (calls, timers)
 * live in `signature-polling.ts`.
 */

const RANK: Readonly<Record<SolanaCommitment, number>> = { processed: 0, confirmed: 1, finalized: 2 };

/** True when `status` has reached `commitment`. `confirmations: null` means rooted (finalized). */
export function reachesCommitment(status: SignatureStatus, commitment: SolanaCommitment): boolean {
  const level: SolanaCommitment = status.confirmationStatus ?? (status.confirmations === null ? 'finalized' : 'processed');
  return RANK[level] >= RANK[commitment];
}

/** How often `getSignatureStatuses` is polled. @default { initialIntervalMs: 400 (one slot), maxIntervalMs: 2 000, factor: 1.5 } */
export type SignaturePollSchedule = PollSchedule;

export const DEFAULT_SIGNATURE_POLL = { initialIntervalMs: 400, maxIntervalMs: 2_000, factor: 1.5 } as const;

/** The wait after poll number `round` (1 for the first), in ms. */
export function signaturePollIntervalMs(round: number, schedule: SignaturePollSchedule = {}): number {
  return pollIntervalMs(round, schedule, DEFAULT_SIGNATURE_POLL);
}

/**
 * What proves that a transaction can never land:
 * - `block-height`: the caller's `lastValidBlockHeight` is below the **finalized** block
 *   height. Every future block descends from a finalized one and is higher, and no bank
 *   above `lastValidBlockHeight` accepts the blockhash.
 * - `blockhash`: `isBlockhashValid` at `finalized` said `true` at some slot and later
 *   `false` at a **higher** context slot. Finalized banks form one chain, so the blockhash
 *   aged out of it. A `false` without an earlier `true` proves nothing (the blockhash may
 *   be too new for the finalized bank, the node may lag, or it is a durable nonce), and a
 *   `false` from a node behind the `true` is ignored.
 */
export type ExpiryEvidence =
  | { readonly kind: 'block-height'; readonly lastValidBlockHeight: bigint }
  | { readonly kind: 'blockhash'; readonly blockhash: string; readonly validAtSlot: bigint | undefined };

/** The next state of blockhash evidence after one `isBlockhashValid` answer at `finalized`, and whether it proves expiry. */
export function observeBlockhashValidity(
  evidence: Extract<ExpiryEvidence, { kind: 'blockhash' }>,
  answer: { readonly slot: bigint; readonly value: boolean },
): { readonly evidence: Extract<ExpiryEvidence, { kind: 'blockhash' }>; readonly expired: boolean } {
  if (answer.value) {
    const validAtSlot = evidence.validAtSlot === undefined || answer.slot > evidence.validAtSlot ? answer.slot : evidence.validAtSlot;
    return { evidence: { ...evidence, validAtSlot }, expired: false };
  }
  return { evidence, expired: evidence.validAtSlot !== undefined && answer.slot > evidence.validAtSlot };
}

/**
 * What two operators' `getEpochInfo` at `finalized` prove: the block height passed
 * `lastValidBlockHeight` only when **every** answer says so (a node reporting a height 10^6
 * too high proves nothing alone) and no answer has a block height above its slot (a provider
 * answering with something else). The proof is the lowest of them: slot and block height.
 */
export function blockHeightPassed(
  answers: readonly { readonly blockHeight: bigint; readonly absoluteSlot: bigint }[],
  lastValidBlockHeight: bigint,
): { readonly slot: bigint; readonly blockHeight: bigint } | undefined {
  if (answers.length === 0 || !answers.every((a) => a.blockHeight > lastValidBlockHeight && a.blockHeight <= a.absoluteSlot)) return undefined;
  const min = (values: bigint[]) => values.reduce((a, b) => (b < a ? b : a));
  return { slot: min(answers.map((a) => a.absoluteSlot)), blockHeight: min(answers.map((a) => a.blockHeight)) };
}

/**
 * {@link observeBlockhashValidity} over one round of answers from different operators: any
 * `true` moves the evidence on; expiry is proven only when **every** answer is `false` at a
 * context slot above the last `true` (one node's `false`, even at a higher slot, is one
 * node's word). The proof's slot is the lowest of them.
 */
export function observeBlockhashValidities(
  evidence: Extract<ExpiryEvidence, { kind: 'blockhash' }>,
  answers: readonly { readonly slot: bigint; readonly value: boolean }[],
): { readonly evidence: Extract<ExpiryEvidence, { kind: 'blockhash' }>; readonly expiredAtSlot: bigint | undefined } {
  let next = evidence;
  for (const answer of answers) if (answer.value) next = observeBlockhashValidity(next, answer).evidence;
  const proven = answers.length > 0 && answers.every((answer) => !answer.value && observeBlockhashValidity(next, answer).expired);
  return { evidence: next, expiredAtSlot: proven ? answers.map((a) => a.slot).reduce((a, b) => (b < a ? b : a)) : undefined };
}

/**
 * A signature is in no history only when every operator asked answered `null` from a bank
 * at or past the proof's slot: a node behind the proof cannot know, and one node's `null`
 * (it may keep no history) is never proof of absence.
 */
export function absenceProven(answers: readonly { readonly contextSlot: bigint; readonly found: boolean }[], proofSlot: bigint): boolean {
  return answers.length >= 2 && answers.every((answer) => !answer.found && answer.contextSlot >= proofSlot);
}
