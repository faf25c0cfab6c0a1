import { systemClock, type Clock } from '../clock.js';
import { TransportError } from '../errors/transport-error.js';
import type { RpcRequester } from '../api/request-options.js';
import type { ExpiryEvidence, SignaturePollSchedule } from './confirmation.js';
import { checkCommitment, invalidInput, type SolanaCommitment } from './inputs.js';
import { pollSignature } from './signature-polling.js';
import { badPollScheduleField } from '../retry/poll-schedule.js';
import { assertBlockhash } from './chain-state.js';
import { assertSignature } from './transactions.js';
import type { SolanaTransactionError } from './transaction-schemas.js';
import type { WaitForSignatureReturnType } from './wait-outcome.js';
import { onSignature } from '../subscriptions/solana-helpers.js';
import type { Subscriber } from '../subscriptions/mapped.js';

/** Options of `waitForSignature`. */
export interface WaitForSignatureOptions {
  /** The level to wait for. @default 'confirmed' */
  readonly commitment?: SolanaCommitment;
  /** Deadline for the whole wait, in ms; then the result is `unknown`. @default 90 000 (a blockhash lives ~60–90 s) */
  readonly timeoutMs?: number;
  /** From `getLatestBlockhash` with the transaction's blockhash: once the finalized block height passes it, the result is `expired`. */
  readonly lastValidBlockHeight?: number | bigint;
  /** The transaction's blockhash (base58): without `lastValidBlockHeight`, expiry is proven with `isBlockhashValid`. `sendAndConfirm` reads it from the wire bytes. */
  readonly blockhash?: string;
  /** Cancels the wait (`ABORTED`). */
  readonly signal?: AbortSignal;
  /** Poll intervals. @default { initialIntervalMs: 400, maxIntervalMs: 2 000, factor: 1.5 } */
  readonly poll?: SignaturePollSchedule;
  /** @default the real clock */
  readonly clock?: Clock;
  /**
   * Also listen on a `signatureSubscribe` subscription when the requester can subscribe (an
   * `HttpTransportPool` with WebSocket endpoints): the confirmation arrives the moment a node
   * notifies it, and survives a dropped socket (the subscription is rebound and re-checked).
   * Polling goes on beside it, because only polling can prove expiry; a subscription that
   * cannot be opened is simply not used. @default true
   */
  readonly subscribe?: boolean;
}

/** Default deadline of `waitForSignature` and `sendAndConfirm`, in ms. */
export const DEFAULT_CONFIRM_TIMEOUT_MS = 90_000;

function checkTimeoutMs(value: unknown): number {
  if (value === undefined) return DEFAULT_CONFIRM_TIMEOUT_MS;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) invalidInput('timeoutMs', 'a positive number of ms');
  return value;
}

/** The validated options of a wait (`INVALID_INPUT` before anything is sent). */
export function checkWaitOptions(options: WaitForSignatureOptions): {
  readonly commitment: SolanaCommitment;
  readonly timeoutMs: number;
  readonly evidence: ExpiryEvidence | undefined;
} {
  const badPoll = badPollScheduleField(options.poll);
  if (badPoll !== undefined) invalidInput(badPoll, 'a positive number (factor ≥ 1)');
  return {
    commitment: checkCommitment(options.commitment, 'commitment') ?? 'confirmed',
    timeoutMs: checkTimeoutMs(options.timeoutMs),
    evidence: evidenceOf(options),
  };
}

function evidenceOf(options: WaitForSignatureOptions): ExpiryEvidence | undefined {
  const { lastValidBlockHeight, blockhash } = options;
  if (lastValidBlockHeight !== undefined) {
    const ok = typeof lastValidBlockHeight === 'bigint' ? lastValidBlockHeight >= 0n : Number.isSafeInteger(lastValidBlockHeight) && lastValidBlockHeight >= 0;
    if (!ok) invalidInput('lastValidBlockHeight', 'a non-negative integer');
    return { kind: 'block-height', lastValidBlockHeight: BigInt(lastValidBlockHeight) };
  }
  if (blockhash !== undefined) {
    assertBlockhash(blockhash);
    return { kind: 'blockhash', blockhash, validAtSlot: undefined };
  }
  return undefined;
}

/**
 * Waits until `signature` reaches `commitment`, its expiry is proven, or `timeoutMs`
 * passes, by polling `getSignatureStatuses` on a growing interval (see
 * `signature-polling.ts`). Inputs are validated before anything is sent.
 *
 * ```ts
 * const outcome = await waitForSignature(pool, signature, { commitment: 'confirmed', lastValidBlockHeight });
 * if (outcome.status === 'expired') resign(); // safe: it can never land
 * ```
 */
export async function waitForSignature(
  requester: RpcRequester,
  signature: string,
  options: WaitForSignatureOptions = {},
): Promise<WaitForSignatureReturnType> {
  assertSignature(signature);
  const { commitment, timeoutMs, evidence } = checkWaitOptions(options);
  const clock = options.clock ?? systemClock;
  const { signal } = options;
  // One signal ends both ways of waiting: the caller's, or the end of the race.
  const race = new AbortController();
  const stop = () => race.abort(signal?.reason);
  signal?.addEventListener('abort', stop, { once: true });
  try {
    if (signal?.aborted === true) throw signal.reason;
    const polling = pollSignature(requester, signature, {
      commitment,
      deadlineMs: clock.now() + timeoutMs,
      timeoutMs,
      evidence,
      schedule: options.poll,
      signal: race.signal,
      clock,
    });
    const notified = options.subscribe === false ? undefined : confirmedBySubscription(requester, signature, commitment, race.signal);
    return await (notified === undefined ? polling : Promise.race([polling, notified]));
  } catch (error) {
    if (error instanceof TransportError || signal?.aborted !== true) throw error;
    throw new TransportError('ABORTED', 'waitForSignature was aborted by the caller', { context: {}, cause: error });
  } finally {
    signal?.removeEventListener('abort', stop);
    race.abort();
  }
}

/**
 * `confirmed` from a signature subscription, or a promise that never settles when the
 * requester cannot subscribe or the subscription fails (polling then decides alone).
 */
function confirmedBySubscription(
  requester: RpcRequester,
  signature: string,
  commitment: SolanaCommitment,
  signal: AbortSignal,
): Promise<WaitForSignatureReturnType> | undefined {
  const subscriber = requester as RpcRequester & Partial<Subscriber>;
  if (typeof subscriber.subscribe !== 'function') return undefined;
  return onSignature(subscriber as RpcRequester & Subscriber, signature, { commitment, signal }).then(
    (confirmation) => ({ status: 'confirmed', signature, slot: confirmation.slot, err: confirmation.err as SolanaTransactionError | null, confirmationStatus: commitment }),
    () => new Promise<never>(() => undefined),
  );
}
