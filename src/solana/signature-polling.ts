import { sleep, type Clock } from '../clock.js';
import { isTransportError, TransportError } from '../errors/transport-error.js';
import type { RpcRequester } from '../api/request-options.js';
import * as z from 'zod/mini';
import { askTwoOperators } from '../proof/two-operators.js';
import {
  absenceProven,
  blockHeightPassed,
  observeBlockhashValidities,
  signaturePollIntervalMs,
  reachesCommitment,
  type ExpiryEvidence,
  type SignaturePollSchedule,
} from './confirmation.js';
import type { SolanaCommitment } from './inputs.js';
import { parseResult, u64Schema } from './schemas.js';
import { signatureStatusesSchema, type SignatureStatus } from './transaction-schemas.js';
import { withContext } from './account-schemas.js';
import type { WaitForSignatureReturnType } from './wait-outcome.js';

/**
 * The polling strategy of `waitForSignature`: `getSignatureStatuses` on a growing interval
 * until the commitment is reached, the expiry is proven, or the deadline comes. Expiry is
 * negative evidence, so each of its pieces (the finalized block height or blockhash
 * validity, then the history search) is asked of two operators and must hold in both
 * answers (see `confirmation.ts`); a requester that cannot name a second operator never
 * proves it, and the wait ends `unknown`. Each poll
 * is one pool call with its own retries; a poll that fails is not the transaction's fate,
 * so polling goes on (the last failure is reported with `unknown`). Only the caller's
 * abort and a closed pool end the wait with an error.
 */

export interface PollSignatureOptions {
  readonly commitment: SolanaCommitment;
  /** Absolute deadline on `clock`. */
  readonly deadlineMs: number;
  /** The whole wait's budget, for the error of a call that would start after the deadline. */
  readonly timeoutMs: number;
  readonly evidence: ExpiryEvidence | undefined;
  readonly schedule: SignaturePollSchedule | undefined;
  readonly signal: AbortSignal | undefined;
  readonly clock: Clock;
}

const epochInfoSchema = z.object({ blockHeight: u64Schema, absoluteSlot: u64Schema });
const validitySchema = withContext(z.boolean());
const statusesSchema = signatureStatusesSchema(1);

/** A proven end of the transaction's lifetime, before the history search. */
interface ExpiryProof {
  readonly reason: 'block-height-exceeded' | 'blockhash-expired';
  /** The slot of the lowest finalized bank that proved it. */
  readonly slot: bigint;
  readonly blockHeight: bigint | undefined;
}

/** Errors that end the wait: the caller gave up, or the pool is gone. Everything else is a failed poll. */
function isFatal(error: unknown, signal: AbortSignal | undefined): boolean {
  if (signal?.aborted === true) return true;
  return isTransportError(error) && (error.code === 'POOL_CLOSED' || error.code === 'ABORTED');
}

export async function pollSignature(requester: RpcRequester, signature: string, options: PollSignatureOptions): Promise<WaitForSignatureReturnType> {
  const { clock, signal, commitment, deadlineMs } = options;
  let evidence = options.evidence;
  let lastStatus: SignatureStatus | null = null;
  let lastError: TransportError | undefined;
  const remaining = () => deadlineMs - clock.now();
  /** The next call's options: what is left of the deadline. A round may run into it between its calls: no call starts after it. */
  const within = (method: string) => {
    const timeoutMs = remaining();
    if (timeoutMs <= 0) {
      throw new TransportError('DEADLINE_EXCEEDED', `waitForSignature did not complete within ${Math.round(options.timeoutMs)} ms`, {
        context: { timeoutMs: options.timeoutMs },
        method,
      });
    }
    return { timeoutMs, signal };
  };
  const statusOf = async (): Promise<SignatureStatus | null> => {
    const result = parseResult('getSignatureStatuses', statusesSchema, await requester.request('getSignatureStatuses', [[signature]], within('getSignatureStatuses')));
    return result.value[0] ?? null;
  };
  /** Two operators' answers, or undefined when the requester cannot get a second operator's word. */
  const askTwo = <T>(method: string, params: readonly unknown[], schema: z.ZodMiniType<T>) =>
    askTwoOperators(requester, method, params, (value) => parseResult(method, schema, value), () => within(method));

  /** What proves the deadline of the transaction passed (two operators agreeing), or undefined. */
  const provenPast = async (): Promise<ExpiryProof | undefined> => {
    if (evidence === undefined) return undefined;
    if (evidence.kind === 'block-height') {
      // getEpochInfo, not getBlockHeight: some providers answer getBlockHeight with the slot (~5 % higher).
      const answers = await askTwo('getEpochInfo', [{ commitment: 'finalized' }], epochInfoSchema);
      const passed = answers && blockHeightPassed(answers.map((answer) => answer.value), evidence.lastValidBlockHeight);
      return passed && { reason: 'block-height-exceeded', ...passed };
    }
    const answers = await askTwo('isBlockhashValid', [evidence.blockhash, { commitment: 'finalized' }], validitySchema);
    if (answers === undefined) return undefined;
    const next = observeBlockhashValidities(evidence, answers.map(({ value }) => ({ slot: value.context.slot, value: value.value })));
    evidence = next.evidence;
    return next.expiredAtSlot === undefined ? undefined : { reason: 'blockhash-expired', slot: next.expiredAtSlot, blockHeight: undefined };
  };

  /** The proven expiry, checked against two operators' full history once more (it may have landed just in time), or undefined. */
  const provenExpiry = async (): Promise<WaitForSignatureReturnType | undefined> => {
    const proof = await provenPast();
    if (proof === undefined) return undefined;
    const finals = await askTwo('getSignatureStatuses', [[signature], { searchTransactionHistory: true }], statusesSchema);
    if (finals === undefined) return undefined;
    for (const { value } of finals) {
      const found = value.value[0] ?? null;
      if (found === null) continue;
      lastStatus = found;
      if (reachesCommitment(found, commitment)) return confirmed(signature, found);
    }
    const absent = absenceProven(finals.map(({ value }) => ({ contextSlot: value.context.slot, found: (value.value[0] ?? null) !== null })), proof.slot);
    if (!absent) return undefined;
    const { reason, slot, blockHeight } = proof;
    return blockHeight === undefined ? { status: 'expired', signature, reason, slot } : { status: 'expired', signature, reason, slot, blockHeight };
  };

  for (let round = 1; remaining() > 0; round++) {
    try {
      const status = await statusOf();
      if (status !== null) {
        lastStatus = status;
        if (reachesCommitment(status, commitment)) return confirmed(signature, status);
      } else {
        const expired = await provenExpiry();
        if (expired !== undefined) return expired;
      }
    } catch (error) {
      if (isFatal(error, signal)) throw error;
      if (isTransportError(error)) lastError = error;
      else throw error;
    }
    const waitMs = Math.min(signaturePollIntervalMs(round, options.schedule), remaining());
    if (waitMs <= 0) break;
    await sleep(clock, waitMs, signal);
  }
  return lastError === undefined ? { status: 'unknown', signature, lastStatus } : { status: 'unknown', signature, lastStatus, lastError };
}

function confirmed(signature: string, status: SignatureStatus): WaitForSignatureReturnType {
  return {
    status: 'confirmed',
    signature,
    slot: status.slot,
    err: status.err,
    confirmationStatus: status.confirmationStatus ?? (status.confirmations === null ? 'finalized' : 'processed'),
  };
}
