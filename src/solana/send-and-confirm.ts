import { systemClock } from '../clock.js';
import { isTransportError } from '../errors/transport-error.js';
import type { RpcRequester } from '../api/request-options.js';
import { createTransactionMethods, checkWireTransaction, type SendTransactionParameters } from './transactions.js';
import { checkWaitOptions, waitForSignature, type WaitForSignatureOptions } from './wait-for-signature.js';
import type { WaitForSignatureReturnType } from './wait-outcome.js';
import { blockhashFromWireBytes } from './wire-message.js';
import { invalidInput } from './inputs.js';

/** Options of `sendAndConfirm`: the wait's options plus `sendTransaction`'s. */
export interface SendAndConfirmOptions extends Omit<WaitForSignatureOptions, 'blockhash'> {
  /** Options of the one `sendTransaction`. @default { encoding: 'base64' } */
  readonly send?: SendTransactionParameters;
}

/**
 * How `sendAndConfirm` ended: the wait's outcome, plus whether the node acknowledged the
 * send (`acknowledged`) or its answer was lost after it may have arrived (`ambiguous`:
 * never resent; the wait decided).
 */
export type SendAndConfirmReturnType = WaitForSignatureReturnType & { readonly dispatch: 'acknowledged' | 'ambiguous' };

/**
 * Sends a signed wire transaction **once** and waits for its signature (see
 * `waitForSignature`). Expiry comes from `lastValidBlockHeight` when given, else from the
 * blockhash read out of the wire message with `isBlockhashValid`. A send whose answer was
 * lost (`AMBIGUOUS_DISPATCH`) is not resent: the wait decides. A send the pool reports as
 * refused or never sent (`RPC_ERROR` such as a preflight failure, `RATE_LIMITED`, …) is
 * thrown: nothing landed, and the same bytes may be sent again.
 */
export async function sendAndConfirm(
  requester: RpcRequester,
  wireTransaction: string,
  options: SendAndConfirmOptions = {},
): Promise<SendAndConfirmReturnType> {
  const { signature, bytes } = checkWireTransaction(wireTransaction, options.send?.encoding);
  // The blockhash proves expiry only without the caller's lastValidBlockHeight, which takes precedence.
  const blockhash = options.lastValidBlockHeight === undefined ? blockhashFromWireBytes(bytes) : undefined;
  if (blockhash === undefined && options.lastValidBlockHeight === undefined) {
    invalidInput('wireTransaction', 'a wire transaction with a complete message (no blockhash found)');
  }
  const clock = options.clock ?? systemClock;
  const { commitment, timeoutMs } = checkWaitOptions({ ...options, ...(blockhash === undefined ? {} : { blockhash }) });
  const wait: WaitForSignatureOptions = { ...options, commitment, clock, ...(blockhash === undefined ? {} : { blockhash }) };
  const startMs = clock.now();

  let dispatch: SendAndConfirmReturnType['dispatch'] = 'acknowledged';
  try {
    await createTransactionMethods({ requester, defaultCommitment: undefined, clock }).sendTransaction(wireTransaction, options.send, {
      timeoutMs,
      signal: options.signal,
    });
  } catch (error) {
    // The bytes may have reached a node: never send again, wait for the signature instead.
    if (!isTransportError(error, 'AMBIGUOUS_DISPATCH') && !isTransportError(error, 'INVALID_RESPONSE')) throw error;
    dispatch = 'ambiguous';
  }
  // The wait gets what is left of the one deadline (at least a moment for one last poll).
  const leftMs = Math.max(timeoutMs - (clock.now() - startMs), 1);
  const outcome = await waitForSignature(requester, signature, { ...wait, timeoutMs: leftMs });
  return { ...outcome, dispatch };
}
