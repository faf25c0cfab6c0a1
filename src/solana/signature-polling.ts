import { sleep, type Clock } from '../clock.js';
import { isTransportError, TransportError } from '../errors/transport-error.js';
import type { RpcRequester } from '../pool/request-options.js';
import * as z from 'zod/mini';
import {
  observeBlockhashValidity,
  signaturePollIntervalMs,
  reachesCommitment,
  type ExpiryEvidence,
  type SignaturePollSchedule,
} from './confirmation.js';
import type { SolanaCommitment } from './inputs.js';
import { parseResult, u64Schema } from './schemas.js';
import { signatureStatusesSchema, type SignatureStatus } from './transaction-schemas.js';
import { withContext } from './account-schemas.js';
import type { WaitForSignatureReturnType } from './wait-for-signature.js';

/**
 * The polling strategy of `waitForSignature`: `getSignatureStatuses` on a growing interval
 * until the commitment is reached, the expiry is proven, or the deadline comes. Each poll
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
  const call = async <T>(method: string, params: unknown[], schema: z.ZodMiniType<T>): Promise<T> => {
    const timeoutMs = remaining();
    // A round may run into the deadline between its calls: no call starts after it.
    if (timeoutMs <= 0) {
      throw new TransportError('DEADLINE_EXCEEDED', `waitForSignature did not complete within ${Math.round(options.timeoutMs)} ms`, {
        context: { timeoutMs: options.timeoutMs },
        method,
      });
    }
    return parseResult(method, schema, await requester.request(method, params, { timeoutMs, signal }));
  };
  const statusOf = async (searchTransactionHistory: boolean): Promise<SignatureStatus | null> => {
    const config = searchTransactionHistory ? { searchTransactionHistory: true } : undefined;
    const result = await call('getSignatureStatuses', config === undefined ? [[signature]] : [[signature], config], signatureStatusesSchema(1));
    return result.value[0] ?? null;
  };

  /** The proven expiry, checked against the full history once more (it may have landed just in time), or undefined. */
  const provenExpiry = async (): Promise<WaitForSignatureReturnType | undefined> => {
    if (evidence === undefined) return undefined;
    let reason: 'block-height-exceeded' | 'blockhash-expired';
    let slot: bigint;
    let blockHeight: bigint | undefined;
    if (evidence.kind === 'block-height') {
      // getEpochInfo, not getBlockHeight: some providers answer getBlockHeight with the slot (~5 % higher).
      const info = await call('getEpochInfo', [{ commitment: 'finalized' }], epochInfoSchema);
      if (info.blockHeight <= evidence.lastValidBlockHeight || info.blockHeight > info.absoluteSlot) return undefined;
      reason = 'block-height-exceeded';
      slot = info.absoluteSlot;
      blockHeight = info.blockHeight;
    } else {
      const answer = await call('isBlockhashValid', [evidence.blockhash, { commitment: 'finalized' }], validitySchema);
      const next = observeBlockhashValidity(evidence, { slot: answer.context.slot, value: answer.value });
      evidence = next.evidence;
      if (!next.expired) return undefined;
      reason = 'blockhash-expired';
      slot = answer.context.slot;
    }
    const final = await statusOf(true);
    if (final !== null) {
      lastStatus = final;
      return reachesCommitment(final, commitment) ? confirmed(signature, final) : undefined;
    }
    return blockHeight === undefined ? { status: 'expired', signature, reason, slot } : { status: 'expired', signature, reason, slot, blockHeight };
  };

  for (let round = 1; remaining() > 0; round++) {
    try {
      const status = await statusOf(false);
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
