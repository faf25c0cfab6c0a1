import * as z from 'zod/mini';
import { sleep, systemClock, type Clock } from '../clock.js';
import { isTransportError, TransportError } from '../errors/transport-error.js';
import { evmTransactionHashFromSendParams } from '../jsonrpc/transaction-id.js';
import type { RpcRequester } from '../api/request-options.js';
import { badPollScheduleField, pollIntervalMs, type PollSchedule } from '../retry/poll-schedule.js';
import { assertEvmAddress } from './address.js';
import { blockParam, invalidInput, type Hex } from './inputs.js';
import { receiptSchema, transactionSchema, type EvmTransactionReceipt } from './object-schemas.js';
import { askTwoOperators } from '../proof/two-operators.js';
import { nonceOfRawTransaction } from './raw-transaction.js';
import { aboutAsked, createTransactionMethods, checkRawTransaction } from './transactions.js';
import { parseResult, quantitySchema } from './schemas.js';

/** Options of `sendAndWait`. */
export interface SendAndWaitOptions {
  /** Blocks on top of (and including) the one that mined it. @default 1 */
  readonly confirmations?: number;
  /** Deadline for the send and the wait, in ms; then the result is `unknown`. @default 120 000 */
  readonly timeoutMs?: number;
  /**
   * The sender. Needed to prove a replacement (its nonce used by another transaction);
   * when absent it is read from `eth_getTransactionByHash` while two operators know the
   * transaction and agree on it. @default learned from two operators
   */
  readonly from?: string;
  /** Poll intervals. @default { initialIntervalMs: 500, maxIntervalMs: 4 000, factor: 1.5 } */
  readonly poll?: PollSchedule;
  /** Cancels the wait (`ABORTED`); a send already written is not recalled. */
  readonly signal?: AbortSignal;
  /** @default the client's clock */
  readonly clock?: Clock;
}

/**
 * How `sendAndWait` ended. `confirmed`: mined with `confirmations` (check `receipt.status`:
 * `reverted` still used the nonce and paid gas; depth is counted against the requester's
 * `trustedHead`). `expired`: two operators say the nonce was used by another
 * transaction at the requested depth — this one can never be mined; re-sign with a fresh
 * nonce if still wanted. `unknown`: the deadline came first — it may still be mined; do
 * not send a conflicting transaction unless you mean to replace it.
 */
export type SendAndWaitReturnType =
  | {
      readonly status: 'confirmed';
      readonly transactionHash: Hex;
      readonly receipt: EvmTransactionReceipt;
      readonly confirmations: bigint;
      readonly dispatch: SendDispatch;
    }
  | {
      readonly status: 'expired';
      readonly transactionHash: Hex;
      readonly reason: 'nonce-used-by-another-transaction';
      readonly from: Hex;
      readonly nonce: bigint;
      readonly dispatch: SendDispatch;
    }
  | {
      readonly status: 'unknown';
      readonly transactionHash: Hex;
      /** The receipt when it was mined but not yet deep enough. */
      readonly receipt: EvmTransactionReceipt | null;
      readonly lastError?: TransportError;
      readonly dispatch: SendDispatch;
    };

/** `acknowledged`: the node answered the send (its hash, "already known" or "nonce too low"); `ambiguous`: the answer was lost, it was not resent. */
export type SendDispatch = 'acknowledged' | 'ambiguous';

export const DEFAULT_SEND_AND_WAIT_TIMEOUT_MS = 120_000;
export const DEFAULT_RECEIPT_POLL = { initialIntervalMs: 500, maxIntervalMs: 4_000, factor: 1.5 } as const;

/** Node answers to a send that mean "the node has it, or its nonce is used": the wait decides. */
const KNOWN_OR_NONCE_USED = /already known|known transaction|already imported|nonce too low|nonce has already been used/i;

/** Confirmations of a receipt at head `head`: the mining block counts as one. Pure. */
export function confirmationsAt(head: bigint, minedAt: bigint): bigint {
  return head >= minedAt ? head - minedAt + 1n : 0n;
}

/** The block at which a nonce counts as used with `confirmations` depth, or `undefined` if the chain is not that long yet. Pure. */
export function depthBlock(head: bigint, confirmations: number): bigint | undefined {
  const block = head - BigInt(confirmations - 1);
  return block >= 0n ? block : undefined;
}

function checkOptions(options: SendAndWaitOptions): { confirmations: number; timeoutMs: number } {
  const confirmations = options.confirmations ?? 1;
  if (!Number.isSafeInteger(confirmations) || confirmations < 1) invalidInput('confirmations', 'an integer ≥ 1');
  const timeoutMs = options.timeoutMs ?? DEFAULT_SEND_AND_WAIT_TIMEOUT_MS;
  if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0) invalidInput('timeoutMs', 'a positive number of ms');
  if (options.from !== undefined) assertEvmAddress(options.from, 'from');
  const badPoll = badPollScheduleField(options.poll);
  if (badPoll !== undefined) invalidInput(badPoll, 'a positive number (factor ≥ 1)');
  return { confirmations, timeoutMs };
}

/**
 * Sends signed bytes **once** (`eth_sendRawTransaction`) and polls the receipt until it
 * has `confirmations`, the nonce is proven used by another transaction, or `timeoutMs`
 * passes. A lost answer (`AMBIGUOUS_DISPATCH`) is never resent: the wait decides. Other
 * send failures (a definitive node error such as "insufficient funds", or a send the pool
 * proved was never delivered) are thrown.
 */
export async function sendAndWait(requester: RpcRequester, serializedTransaction: string, options: SendAndWaitOptions = {}): Promise<SendAndWaitReturnType> {
  const raw = checkRawTransaction(serializedTransaction);
  const nonce = nonceOfRawTransaction(raw);
  if (nonce === undefined) invalidInput('serializedTransaction', 'a signed legacy or EIP-2718 transaction');
  const transactionHash = evmTransactionHashFromSendParams([raw]) as Hex;
  const { confirmations, timeoutMs } = checkOptions(options);
  const clock = options.clock ?? systemClock;
  const { signal } = options;
  const deadlineMs = clock.now() + timeoutMs;
  const remaining = () => deadlineMs - clock.now();
  /** Options of the next call: what is left of the one deadline; none starts after it. */
  const within = () => {
    const left = remaining();
    if (left <= 0) {
      throw new TransportError('DEADLINE_EXCEEDED', `sendAndWait did not complete within ${Math.round(timeoutMs)} ms`, { context: { timeoutMs } });
    }
    return { timeoutMs: left, signal };
  };
  const ctx = { requester, clock };
  const transactions = createTransactionMethods(ctx);
  const blockNumber = async () => parseResult('eth_blockNumber', quantitySchema, await requester.request('eth_blockNumber', [], within()));

  let dispatch: SendDispatch = 'acknowledged';
  try {
    await transactions.sendRawTransaction(raw, within());
  } catch (error) {
    if (isTransportError(error, 'AMBIGUOUS_DISPATCH')) dispatch = 'ambiguous';
    else if (!(isTransportError(error, 'RPC_ERROR') && KNOWN_OR_NONCE_USED.test(error.rpcMessage ?? ''))) throw error;
  }

  let from = options.from as Hex | undefined;
  let receipt: EvmTransactionReceipt | null = null;
  let lastError: TransportError | undefined;
  const askTwo = <T>(method: string, params: readonly unknown[], parse: (value: unknown) => T) => askTwoOperators(requester, method, params, parse, within);
  /**
   * The head depth is counted against: the one the pool trusts (two operators vouch for it,
   * never above the reference tip), after fresh heads from two operators. Never one node's
   * `eth_blockNumber` — except from a requester that has no trusted head to offer.
   */
  const head = async (): Promise<bigint | undefined> => {
    if (requester.trustedHead === undefined) return blockNumber();
    // Each answer is observed by the pool's head book; a pool of one operator is asked once.
    if (requester.requestWithOrigin === undefined) await blockNumber();
    else await askTwo('eth_blockNumber', [], (value) => parseResult('eth_blockNumber', quantitySchema, value));
    return requester.trustedHead('block');
  };
  /** Two operators say the sender's nonce count at `block` is past this nonce (one node's count proves nothing). */
  const nonceUsedAt = async (sender: Hex, block: bigint): Promise<boolean> => {
    const counts = await askTwo('eth_getTransactionCount', [sender, blockParam(block)], (value) => parseResult('eth_getTransactionCount', quantitySchema, value));
    return counts !== undefined && counts.every((count) => count.value > nonce);
  };
  /**
   * The last look before `expired`: undefined when two operators find no receipt of this
   * hash (the proof), the receipt when one finds it, null when no second operator answered.
   */
  const receiptOfTwo = async (): Promise<EvmTransactionReceipt | null | undefined> => {
    const params = [transactionHash];
    const finals = await askTwo('eth_getTransactionReceipt', params, (value) =>
      parseResult('eth_getTransactionReceipt', z.nullable(receiptSchema), aboutAsked('eth_getTransactionReceipt', params, value)),
    );
    if (finals === undefined) return null;
    return finals.find((answer) => answer.value !== null)?.value ?? undefined;
  };
  /**
   * The sender, as two operators report the transaction (one node's `from` could name any
   * account whose nonce is used): undefined while they do not both know it and agree.
   */
  const senderOf = async (): Promise<Hex | undefined> => {
    const params = [transactionHash];
    const parse = (value: unknown) => parseResult('eth_getTransactionByHash', z.nullable(transactionSchema), aboutAsked('eth_getTransactionByHash', params, value));
    const answers = await askTwo('eth_getTransactionByHash', params, parse);
    const [a, b] = answers === undefined ? [] : answers.map((answer) => answer.value?.from.toLowerCase());
    return a !== undefined && a === b ? (a as Hex) : undefined;
  };
  for (let round = 1; remaining() > 0; round++) {
    try {
      receipt = await transactions.getTransactionReceipt(transactionHash, within());
      if (receipt !== null) {
        const at = await head();
        const depth = at === undefined ? 0n : confirmationsAt(at, receipt.blockNumber);
        if (depth >= BigInt(confirmations)) return { status: 'confirmed', transactionHash, receipt, confirmations: depth, dispatch };
      } else {
        from ??= await senderOf();
        const top = from === undefined ? undefined : await head();
        const at = top === undefined ? undefined : depthBlock(top, confirmations);
        if (from !== undefined && at !== undefined && (await nonceUsedAt(from, at))) {
          // Mined just now at exactly that nonce? One last look, on two operators, before calling it replaced.
          const found = await receiptOfTwo();
          if (found === undefined) return { status: 'expired', transactionHash, reason: 'nonce-used-by-another-transaction', from, nonce, dispatch };
          receipt = found;
        }
      }
    } catch (error) {
      if (signal?.aborted === true || !isTransportError(error) || error.code === 'POOL_CLOSED' || error.code === 'ABORTED') throw toAbort(error, signal);
      lastError = error;
    }
    const waitMs = Math.min(pollIntervalMs(round, options.poll ?? {}, DEFAULT_RECEIPT_POLL), remaining());
    if (waitMs <= 0) break;
    await sleep(clock, waitMs, signal).catch((error: unknown) => {
      throw toAbort(error, signal);
    });
  }
  return lastError === undefined ? { status: 'unknown', transactionHash, receipt, dispatch } : { status: 'unknown', transactionHash, receipt, lastError, dispatch };
}

function toAbort(error: unknown, signal: AbortSignal | undefined): unknown {
  if (error instanceof TransportError || signal?.aborted !== true) return error;
  return new TransportError('ABORTED', 'sendAndWait was aborted by the caller', { context: {}, cause: error });
}
