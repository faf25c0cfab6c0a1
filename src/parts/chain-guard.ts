import type { Clock } from '../clock.js';
import { invalidConfig } from '../config/normalize.js';
import type { HttpTransportPoolOptions } from '../config/types.js';
import { TransportError, type ConfigIssue } from '../errors/transport-error.js';
import type { FailureCause, RequestKind } from '../retry/causes.js';
import type { RoleState } from '../admission/role-state.js';
import { failureOf } from '../http/classify.js';
import type { ClassifiedFailure, ClassifiedOutcome } from '../http/outcome.js';
import { createRequestBody } from '../jsonrpc/envelope.js';
import { isBase58OfLength } from '../jsonrpc/base58.js';
import type { PoolEvents } from '../api/events.js';

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

const HASH_HEX = /^0x[0-9a-fA-F]{64}$/;
const QUANTITY_HEX = /^0x[0-9a-fA-F]{1,64}$/;
/** Pause before asking again after a check failed: doubles from the first to the last. */
const RECHECK_FIRST_MS = 1_000;
const RECHECK_MAX_MS = 30_000;

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

/** `CHAIN_MISMATCH`: every endpoint serving `kind` (or the pinned one) is on another chain than `expected`. */
export function chainMismatchError(expected: string, kind: RequestKind, pinned: string | undefined): TransportError<'CHAIN_MISMATCH'> {
  const which = pinned === undefined ? `Every endpoint serving '${kind}' requests is` : `Endpoint '${pinned}' is`;
  return new TransportError('CHAIN_MISMATCH', `${which} on another chain than expected (${expected})`, {
    context: { kind, expected, ...(pinned === undefined ? {} : { pinnedEndpoint: pinned }) },
  });
}

/** What the guard needs from the pool. */
export interface ChainGuardHost {
  /** Sends one check to the endpoint (outside admission, under its `requestTimeoutMs`). */
  ask(role: RoleState, check: ChainCheck): Promise<{ readonly outcome: ClassifiedOutcome; readonly latencyMs: number }>;
  /** A check ended (verified, or failed with a new instant to ask again): waiting calls look again. */
  wake(): void;
  /** True once the pool is closed: a check ending then teaches nothing. */
  closed(): boolean;
  /** The endpoint is on another chain: take its roles out for good. */
  onWrongChain(endpointId: string): void;
  /** A check failed (the endpoint is down, slow, throttling or lying): recorded like a failed attempt (reputation, cooldown). */
  onCheckFailed(role: RoleState, failure: ClassifiedFailure): void;
  onCheckSucceeded(role: RoleState, latencyMs: number): void;
  /** This process reached a verdict (a fleet shares it). */
  onVerdict?(endpointId: string, status: 'verified' | 'wrong-chain'): void;
}

interface Entry {
  status: ChainStatus;
  /** The role checks are sent through (the endpoint's first). */
  readonly role: RoleState;
  /** Every role of the endpoint: admissible once it is verified. */
  readonly roles: RoleState[];
  /** True while a check is in flight. */
  checking: boolean;
  /** When a failed check may be asked again. */
  nextCheckAtMs: number;
  failures: number;
  /** How the last failed check failed. */
  lastFailureCause: FailureCause | undefined;
  /** When the endpoint was last verified (for `health.chainRecheckMs`). */
  verifiedAtMs: number;
}

/**
 * The opt-in chain guard. Until an endpoint is verified its roles admit nothing
 * (`RoleState.chainPending`); the first admission trial that meets such a role starts the
 * endpoint's check in the background, so no call ever waits on a check it can route
 * around: calls go to verified endpoints, or wait (within their deadline) for the first
 * one. A match verifies the endpoint and wakes waiting calls; a wrong answer excludes it for
 * good; a failed check (timeout, 5xx, 429, garbage) is asked again after 1 s, 2 s, … 30 s,
 * started by the next trial that meets the endpoint after that instant.
 */
export class ChainGuard {
  readonly #checks: readonly ChainCheck[];
  readonly #entries = new Map<string, Entry>();
  readonly #events: PoolEvents;
  readonly #clock: Clock;
  readonly #host: ChainGuardHost;

  constructor(checks: readonly ChainCheck[], roles: readonly RoleState[], events: PoolEvents, clock: Clock, host: ChainGuardHost) {
    this.#checks = checks;
    this.#events = events;
    this.#clock = clock;
    this.#host = host;
    for (const role of roles) {
      const checked = role.endpoint.verifyChain;
      role.chainPending = checked;
      const entry = this.#entries.get(role.endpointId);
      if (entry) entry.roles.push(role);
      else this.#entries.set(role.endpointId, { status: checked ? 'unverified' : 'unchecked', role, roles: [role], checking: false, nextCheckAtMs: 0, failures: 0, lastFailureCause: undefined, verifiedAtMs: 0 });
    }
  }

  status(endpointId: string): ChainStatus {
    return this.#entries.get(endpointId)?.status ?? 'unchecked';
  }

  /** An unverified endpoint's check: how the last one failed and when the next may start (a running check: now). */
  checkOf(endpointId: string): { readonly lastCause: FailureCause | undefined; readonly nextCheckAtMs: number } | undefined {
    const entry = this.#entries.get(endpointId);
    if (entry === undefined || entry.status !== 'unverified') return undefined;
    return { lastCause: entry.lastFailureCause, nextCheckAtMs: entry.checking ? 0 : entry.nextCheckAtMs };
  }

  /**
   * Called by admission for a role whose endpoint is not verified: starts its check when
   * none runs and the pause after a failed one is over. Returns the instant at which
   * admission should look again (infinity while a check runs: its end wakes the waiters).
   */
  pending(role: RoleState, nowMs: number): number {
    const entry = this.#entries.get(role.endpointId);
    if (entry === undefined || entry.status !== 'unverified') return Number.POSITIVE_INFINITY;
    if (entry.checking) return Number.POSITIVE_INFINITY;
    if (nowMs < entry.nextCheckAtMs) return entry.nextCheckAtMs;
    entry.checking = true;
    void this.#run(entry);
    return Number.POSITIVE_INFINITY;
  }

  /**
   * The bench loop's share (`health`): retries a failed check when its pause is over, even
   * with no call to start it, and asks every verified endpoint again `recheckMs` after it
   * was verified (0 = never), so a load balancer that starts routing to another chain is
   * caught. A verified endpoint keeps serving while it is re-checked; a failed re-check is
   * asked again at the next interval. Returns when something is next due.
   */
  housekeeping(nowMs: number, recheckMs: number): number {
    let next = Number.POSITIVE_INFINITY;
    for (const entry of this.#entries.values()) {
      if (entry.checking) continue;
      if (entry.status === 'unverified' && entry.failures > 0) {
        if (nowMs >= entry.nextCheckAtMs) this.pending(entry.role, nowMs);
        else next = Math.min(next, entry.nextCheckAtMs);
      } else if (entry.status === 'verified' && recheckMs > 0) {
        const dueAtMs = entry.verifiedAtMs + recheckMs;
        if (nowMs < dueAtMs) {
          next = Math.min(next, dueAtMs);
        } else {
          entry.checking = true;
          void this.#run(entry);
        }
      }
    }
    return next;
  }

  async #run(entry: Entry): Promise<void> {
    const endpointId = entry.role.endpointId;
    const recheck = entry.status === 'verified';
    try {
      for (const chainCheck of this.#checks) {
        const { outcome, latencyMs } = await this.#host.ask(entry.role, chainCheck);
        // Closed, or (a first check) another process of the fleet settled it meanwhile.
        if (this.#host.closed() || (!recheck && entry.status !== 'unverified')) return;
        const failure = !outcome.ok ? outcome : chainCheck.read(outcome.result) === undefined ? failureOf('chain-check-invalid', { status: outcome.status }) : undefined;
        if (failure !== undefined && recheck) return this.#recheckFailed(entry, failure);
        if (!outcome.ok) return this.#failed(entry, outcome);
        const reported = chainCheck.read(outcome.result);
        if (reported === undefined) return this.#failed(entry, failureOf('chain-check-invalid', { status: outcome.status }));
        this.#host.onCheckSucceeded(entry.role, latencyMs);
        if (reported !== chainCheck.expected) {
          entry.status = 'wrong-chain';
          this.#events.emit('chain', { atMs: this.#clock.now(), endpointId, status: 'wrong-chain', method: chainCheck.method, reported });
          this.#host.onWrongChain(endpointId);
          this.#host.onVerdict?.(endpointId, 'wrong-chain');
          return;
        }
      }
      entry.verifiedAtMs = this.#clock.now();
      if (recheck) return;
      this.#verify(entry);
      this.#host.onVerdict?.(endpointId, 'verified');
    } finally {
      entry.checking = false;
    }
  }

  /** A re-check of a verified endpoint got no answer to judge: it keeps serving, and is asked again one interval later. */
  #recheckFailed(entry: Entry, failure: ClassifiedFailure): void {
    entry.checking = false;
    entry.verifiedAtMs = this.#clock.now();
    this.#events.emit('chain', { atMs: this.#clock.now(), endpointId: entry.role.endpointId, status: 'check-failed', detail: failure.detail });
    this.#host.onCheckFailed(entry.role, failure);
  }

  /**
   * Another process of the fleet reached a verdict on the endpoint: adopt it without asking
   * (a check running here is ignored when it ends). Returns true when it changed the status.
   */
  adopt(endpointId: string, status: 'verified' | 'wrong-chain', reported?: string): boolean {
    const entry = this.#entries.get(endpointId);
    // A verified endpoint still adopts a re-check's wrong-chain verdict (a load balancer that moved chains).
    if (entry === undefined || entry.status === 'wrong-chain' || (entry.status === 'verified' && status === 'verified')) return false;
    if (status === 'verified') {
      this.#verify(entry);
      return true;
    }
    entry.status = 'wrong-chain';
    this.#events.emit('chain', { atMs: this.#clock.now(), endpointId, status: 'wrong-chain', ...(reported === undefined ? {} : { reported }) });
    this.#host.onWrongChain(endpointId);
    return true;
  }

  #verify(entry: Entry): void {
    entry.status = 'verified';
    entry.verifiedAtMs = this.#clock.now();
    this.#events.emit('chain', { atMs: this.#clock.now(), endpointId: entry.role.endpointId, status: 'verified' });
    for (const role of entry.roles) role.chainPending = false;
    this.#host.wake();
  }

  #failed(entry: Entry, failure: ClassifiedFailure): void {
    entry.checking = false;
    entry.failures++;
    entry.lastFailureCause = failure.cause;
    // A throttled check waits as long as the provider asked, if that is longer.
    const pauseMs = Math.max(Math.min(RECHECK_MAX_MS, RECHECK_FIRST_MS * 2 ** (entry.failures - 1)), failure.providerDelayMs ?? 0);
    entry.nextCheckAtMs = this.#clock.now() + pauseMs;
    const endpointId = entry.role.endpointId;
    this.#events.emit('chain', { atMs: this.#clock.now(), endpointId, status: 'check-failed', detail: failure.detail, retryInMs: pauseMs });
    this.#host.onCheckFailed(entry.role, failure);
    // Waiters scheduled nothing while the check ran: let them look again (and learn the new instant).
    this.#host.wake();
  }
}
