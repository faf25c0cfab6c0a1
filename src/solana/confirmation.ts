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
