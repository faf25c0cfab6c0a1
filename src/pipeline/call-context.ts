/** What a call carries down the path, and what an attempt or a round gives back. */
import type { RoleState } from '../admission/role-state.js';
import type { ConsensusOptions } from '../api/request-options.js';
import type { AttemptRecord } from '../errors/transport-error.js';
import type { RequestBodyWriter } from '../jsonrpc/envelope.js';
import type { RawOutcome } from '../http/executor.js';
import type { ClassifiedFailure } from '../http/outcome.js';
import type { HistoricalRead } from '../health/historical.js';
import type { RequestKind } from '../retry/causes.js';
import type { AttemptControl, Exchanged } from './exchange.js';
import type { FailedCall } from './call-errors.js';
import type { CallObservation } from './call-observer.js';

/** What one call carries from attempt to attempt. */
export interface CallContext extends FailedCall, Exchanged {
  readonly kind: RequestKind;
  /** Pinned to one endpoint by the caller (never hedged, never explores). */
  readonly pinned: boolean;
  readonly attempts: AttemptRecord[];
  /** The request body for a given JSON-RPC id (params serialized once). */
  readonly body: RequestBodyWriter;
  /** Set when the call reads historical data (archival routing and learning). */
  readonly historical: HistoricalRead | undefined;
  /** Exporters watching this call (undefined when nobody observes). */
  readonly observation?: CallObservation | undefined;
  /** Told of the result before the caller sees it, and once when the call's own request loop ends (coalescing frees the call's key). */
  onSettled?: { succeeded(result: unknown): void; settled(): void } | undefined;
  /** When the caller made the call, if before its request loop started (a coalesced joiner going on alone): its errors count from then. */
  startedAtMs?: number | undefined;
  /** The endpoint whose answer the call's own request loop returned (the read cache judges finality by it). */
  answeredBy?: string | undefined;
  /** The agreement this read asks for (`pipeline/consensus.ts`); undefined for every other call. */
  readonly consensus?: ConsensusOptions | undefined;
  /** Endpoints this call may never use (a consensus read's other operators): admission never falls back to them. */
  readonly excluded?: ReadonlySet<string> | undefined;
}

/** A failed attempt, with its endpoint and a secret-free stand-in for the transport error (its code only). */
export type AttemptFailure = ClassifiedFailure & { readonly endpointId: string; readonly transportError: Error | undefined };
export type AttemptResult = { readonly ok: true; readonly result: unknown; readonly endpointId: string } | AttemptFailure;
/** A hedge race's loser: cancelled because the other attempt answered first. Never recorded as a failure. */
export interface LostAttempt {
  readonly ok: false;
  readonly lost: true;
  readonly endpointId: string;
  readonly role: RoleState;
  /** How long it ran before it was cancelled: the latency estimate learns "at least this long". */
  readonly latencyMs: number;
}

/** An attempt's place in a hedge race: the race cancels the loser through it. */
export interface RaceEntry {
  control: AttemptControl | undefined;
  /** Set by the race before it cancels this attempt: its outcome is the race's, not the endpoint's fault. */
  lost: boolean;
}

/**
 * The transport error reduced to its code: undici/DNS messages can name the host, and a
 * host may hide a key in a subdomain, so the original error is never kept.
 */
export function transportErrorOf(raw: RawOutcome): Error | undefined {
  if (raw.type !== 'error') return undefined;
  const code = raw.code ?? raw.kind;
  return Object.assign(new Error(`transport ${raw.kind} failure (${code})`), { code });
}

/**
 * How a round ended: its deciding attempt's result; `alsoFailed` names another endpoint that
 * failed in the same round (a hedged call's first attempt), so the retry avoids both.
 */
export type RoundResult = AttemptResult & { readonly alsoFailed?: string | undefined };
