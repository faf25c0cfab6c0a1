import type { Clock } from '../clock.js';
import { invalidConfig, type NormalizedEndpoint } from '../config/normalize.js';
import type { HttpTransportPoolOptions } from '../config/types.js';
import type { ConfigIssue } from '../errors/transport-error.js';
import type { Cancellation } from '../http/attempt-abort.js';
import { failureOf } from '../http/classify.js';
import type { ClassifiedFailure, ClassifiedOutcome } from '../http/outcome.js';
import { createRequestBody } from '../jsonrpc/envelope.js';
import { isBase58OfLength } from '../solana/address.js';
import type { PoolEvents } from './events.js';

/** One question asked of an endpoint before its first call, and how to read the answer. */
export interface ChainCheck {
  readonly method: string;
  readonly body: (id: number) => string;
  /** The answer every endpoint must give, normalized like `read`'s output. */
  readonly expected: string;
  /** The answer in normalized form, or undefined when it is not a well-formed answer at all. */
  readonly read: (result: unknown) => string | undefined;
}

/** Where an endpoint stands with the chain guard (`unchecked`: no guard, or `verifyChain: false`). */
export type ChainStatus = 'unchecked' | 'unverified' | 'verified' | 'wrong-chain';

/**
 * What the guard says about one attempt's endpoint:
 * - `verified`: send the call;
 * - `failed`: do not send it; `failure` is the attempt's outcome (dispatch `not-dispatched`),
 *   and `ran` says whether this attempt ran the check (only then is it recorded on the endpoint);
 * - `cancelled`: the attempt itself was cancelled (caller, deadline) while waiting for another's check.
 */
export type ChainVerdict =
  | { readonly type: 'verified' }
  | { readonly type: 'failed'; readonly failure: ClassifiedFailure; readonly ran: boolean }
  | { readonly type: 'cancelled' };

const VERIFIED: ChainVerdict = { type: 'verified' };
const CANCELLED: ChainVerdict = { type: 'cancelled' };
const WRONG_CHAIN_FAILURE = failureOf('wrong-chain');
const WRONG_CHAIN: ChainVerdict = { type: 'failed', failure: WRONG_CHAIN_FAILURE, ran: false };
const HASH_HEX = /^0x[0-9a-fA-F]{64}$/;
const QUANTITY_HEX = /^0x[0-9a-fA-F]{1,64}$/;

interface Entry {
  status: ChainStatus;
  /** The check in flight: calls admitted to the endpoint meanwhile wait for it instead of asking again. */
  inflight: Promise<ChainVerdict> | undefined;
}

function check(method: string, params: readonly unknown[], expected: string, read: (result: unknown) => string | undefined): ChainCheck {
  return { method, body: createRequestBody(method, params), expected, read };
}

/**
 * The checks `expectedChain` asks for, in order (chain id first: one cheap answer settles
 * most mismatches). Throws `INVALID_CONFIG` for a hash of neither family, or for Solana and
 * EVM facts mixed.
 */
export function chainChecksOf(options: HttpTransportPoolOptions): readonly ChainCheck[] {
  const expected = options.expectedChain;
  if (expected === undefined) return [];
  const { genesisHash, chainId } = expected;
  const issues: ConfigIssue[] = [];
  const checks: ChainCheck[] = [];
  const family = genesisHash === undefined ? 'evm' : HASH_HEX.test(genesisHash) ? 'evm' : isBase58OfLength(genesisHash, 32) ? 'solana' : undefined;
  if (family === undefined) {
    issues.push({ path: 'expectedChain.genesisHash', message: 'must be a base58 Solana hash of 32 bytes or 0x + 64 hex digits (EVM)' });
  } else if (options.chain !== undefined && options.chain !== 'generic' && options.chain !== family) {
    issues.push({ path: 'expectedChain', message: `describes an ${family === 'evm' ? 'EVM' : 'Solana'} chain but chain is '${options.chain}'` });
  }
  if (chainId !== undefined) {
    if (family === 'solana') issues.push({ path: 'expectedChain.chainId', message: 'is an EVM fact; a Solana chain is named by its genesisHash' });
    checks.push(check('eth_chainId', [], BigInt(chainId).toString(), (result) => (typeof result === 'string' && QUANTITY_HEX.test(result) ? BigInt(result).toString() : undefined)));
  }
  if (genesisHash !== undefined && family === 'solana') {
    checks.push(check('getGenesisHash', [], genesisHash, (result) => (isBase58OfLength(result, 32) ? result : undefined)));
  } else if (genesisHash !== undefined && family === 'evm') {
    const readHash = (result: unknown) => {
      const hash = typeof result === 'object' && result !== null ? (result as { hash?: unknown }).hash : undefined;
      return typeof hash === 'string' && HASH_HEX.test(hash) ? hash.toLowerCase() : undefined;
    };
    checks.push(check('eth_getBlockByNumber', ['0x0', false], genesisHash.toLowerCase(), readHash));
  }
  if (issues.length > 0) throw invalidConfig(issues);
  return checks;
}

/** `chain id 1`, `genesis hash 5eykt…`: what the pool expects, for messages (never secret). */
export function describeExpectedChain(options: HttpTransportPoolOptions): string {
  const { genesisHash, chainId } = options.expectedChain ?? {};
  const parts = [chainId === undefined ? '' : `chain id ${chainId}`, genesisHash === undefined ? '' : `genesis hash ${genesisHash}`];
  return parts.filter(Boolean).join(', ');
}

/**
 * The opt-in chain guard: before an endpoint's first call, ask it which chain it is on.
 * One check per endpoint at a time (calls admitted meanwhile wait for it); a transient
 * failure of the check fails only that attempt (the call was not sent, so it may go
 * elsewhere, even a send) and the next call asks again; a wrong answer excludes the
 * endpoint for good through `onWrongChain`.
 */
export class ChainGuard {
  readonly #checks: readonly ChainCheck[];
  readonly #entries = new Map<string, Entry>();
  readonly #events: PoolEvents;
  readonly #clock: Clock;
  readonly #onWrongChain: (endpointId: string) => void;

  constructor(
    checks: readonly ChainCheck[],
    endpoints: readonly NormalizedEndpoint[],
    events: PoolEvents,
    clock: Clock,
    onWrongChain: (endpointId: string) => void,
  ) {
    this.#checks = checks;
    this.#events = events;
    this.#clock = clock;
    this.#onWrongChain = onWrongChain;
    for (const endpoint of endpoints) {
      this.#entries.set(endpoint.id, { status: endpoint.verifyChain ? 'unverified' : 'unchecked', inflight: undefined });
    }
  }

  status(endpointId: string): ChainStatus {
    return this.#entries.get(endpointId)?.status ?? 'unchecked';
  }

  /** True until the endpoint is verified (one map lookup on the hot path). */
  pending(endpointId: string): boolean {
    const status = this.#entries.get(endpointId)?.status;
    return status === 'unverified' || status === 'wrong-chain';
  }

  /**
   * Runs the check on the endpoint (through `ask`, on the attempt's own permit), or waits
   * for the one in flight until `cancellation` fires.
   */
  async verify(endpointId: string, ask: (check: ChainCheck) => Promise<ClassifiedOutcome>, cancellation: Cancellation): Promise<ChainVerdict> {
    for (;;) {
      const entry = this.#entries.get(endpointId);
      if (entry === undefined || entry.status === 'verified' || entry.status === 'unchecked') return VERIFIED;
      if (entry.status === 'wrong-chain') return WRONG_CHAIN;
      if (entry.inflight === undefined) {
        entry.inflight = this.#run(entry, endpointId, ask);
        return entry.inflight;
      }
      const verdict = await untilCancelled(entry.inflight, cancellation);
      if (verdict === undefined) return CANCELLED;
      // The asker's own abort or deadline says nothing about the endpoint: ask again.
      if (verdict.type === 'failed' && (verdict.failure.detail === 'caller-abort' || verdict.failure.detail === 'deadline')) continue;
      if (verdict.type !== 'failed') return verdict;
      return { type: 'failed', failure: verdict.failure, ran: false };
    }
  }

  async #run(entry: Entry, endpointId: string, ask: (check: ChainCheck) => Promise<ClassifiedOutcome>): Promise<ChainVerdict> {
    try {
      for (const chainCheck of this.#checks) {
        const outcome = await ask(chainCheck);
        // The call itself was not sent, whatever became of the check.
        if (!outcome.ok) return { type: 'failed', failure: { ...outcome, dispatch: 'not-dispatched' }, ran: true };
        const reported = chainCheck.read(outcome.result);
        if (reported === undefined) return { type: 'failed', failure: failureOf('chain-check-invalid', { status: outcome.status }), ran: true };
        if (reported !== chainCheck.expected) {
          entry.status = 'wrong-chain';
          this.#events.emit('chain', { atMs: this.#clock.now(), endpointId, status: 'wrong-chain', method: chainCheck.method, reported });
          this.#onWrongChain(endpointId);
          return { type: 'failed', failure: WRONG_CHAIN_FAILURE, ran: true };
        }
      }
      entry.status = 'verified';
      this.#events.emit('chain', { atMs: this.#clock.now(), endpointId, status: 'verified' });
      return VERIFIED;
    } finally {
      entry.inflight = undefined;
    }
  }
}

/** `promise`'s value, or undefined as soon as `cancellation` fires. */
function untilCancelled<T>(promise: Promise<T>, cancellation: Cancellation): Promise<T | undefined> {
  return new Promise<T | undefined>((resolve) => {
    const unsubscribe = cancellation.onAbort(() => resolve(undefined));
    promise.then((value) => {
      unsubscribe();
      resolve(value);
    });
  });
}
