/**
 * What admission works on: tiers and kind groups (built by `topology.ts`), one admission
 * request, a waiter, and the hooks into reputation and the chain guard.
 */
import type { RoleState } from './role-state.js';
import type { OperatorCeiling } from '../balance/operator-ceiling.js';
import type { TimerHandle } from '../clock.js';
import type { TierRotation } from '../concentration/rotation.js';
import type { FailureCause, RequestKind } from '../retry/causes.js';
import type { Exclusion } from './waiting-for.js';

/** The roles of one priority tier of one kind, with their rotation. */
export interface Tier {
  readonly tier: number;
  readonly members: readonly RoleState[];
  readonly rotation: TierRotation;
  /** Members per reputation band rank (0–3), kept current by `RoleState.setBand`; lets the fast path walk once. */
  readonly bandCounts: number[];
  /** The operator cap as a ceiling (undefined when it cannot bind: one operator, cap off or infeasible). */
  readonly ceiling: OperatorCeiling | undefined;
  /** Operator index of each member, for the ceiling. */
  readonly memberOperators: readonly number[];
}

/** Every role serving one kind, by tier, plus the FIFO queue of waiting calls. */
export interface KindGroup {
  readonly kind: RequestKind;
  readonly roles: readonly RoleState[];
  readonly tiers: readonly Tier[];
  /** The default call deadline: the pool's `timeoutMs`, else largest + smallest `requestTimeoutMs` (room for one failover). */
  readonly defaultTimeoutMs: number;
  readonly queue: Waiter[];
  /** Roles not disabled (a chain guard disables roles of endpoints on another chain). */
  enabledRoles: number;
  wakeTimer: TimerHandle | undefined;
  wakeAtMs: number;
}

export interface AdmissionRequest {
  readonly group: KindGroup;
  /** Only this role may admit (an explicit `endpoint` pin): never filtered away. */
  readonly pin: RoleState | undefined;
  /** Endpoints to use only when no other candidate can admit (retries prefer a different endpoint). */
  readonly avoid: ReadonlySet<string> | undefined;
  /** An avoided endpoint (or a pinned one in `avoid`) may admit only from this instant: the retry backoff. */
  readonly avoidUntilMs: number;
  readonly deadlineMs: number;
  readonly timeoutMs: number;
  readonly signal: AbortSignal | undefined;
  /** An idempotent read that may take the costlier candidate, so a slow endpoint's recovery is seen. */
  readonly explore: boolean;
  /** The call's method, which an endpoint with a credit plan prices (undefined: a permit for no one method, a batch's first item). */
  readonly method: string | undefined;
}

export interface Waiter {
  readonly request: AdmissionRequest;
  readonly resolve: (role: RoleState) => void;
  readonly reject: (error: unknown) => void;
  deadlineTimer: TimerHandle | undefined;
  onAbort: (() => void) | undefined;
}

/** Hooks into reputation and the host breaker, so admission stays independent of both. */
export interface CandidateFilter {
  /** True when the role must be skipped now (reputation cooldown, below threshold, broken host). */
  isExcluded(role: RoleState, nowMs: number): boolean;
  /** Earliest instant at which an excluded role may return (cooldown end, breaker expiry). */
  excludedUntil(role: RoleState, nowMs: number): number;
  /** Pool-collapse guard: when every candidate is excluded, which of them may still be tried. */
  collapseGuard(roles: readonly RoleState[], nowMs: number): readonly RoleState[];
  /** Called before each trial so cached state (cooldown ends) can settle. */
  settle(role: RoleState, nowMs: number): void;
  /**
   * Refreshes roles whose cached band or bench may have changed by time alone (a recovered
   * score, an ended cooldown) and returns the next instant at which that can happen again.
   * One comparison when nothing is due.
   */
  refreshDue(nowMs: number): number;
  /** Why an excluded role is out, for the error of a call that timed out waiting (optional: undefined = not said). */
  exclusionOf?(role: RoleState, nowMs: number): Exclusion | undefined;
}

/** The chain guard, seen from admission: roles flagged `chainPending` wait for their endpoint's check. */
export interface ChainGate {
  /** Starts the endpoint's check if due; returns when to look again (infinity while one runs). */
  pending(role: RoleState, nowMs: number): number;
  /** An unverified endpoint's check, for the error of a call that timed out waiting (optional). */
  checkOf?(endpointId: string): { readonly lastCause: FailureCause | undefined; readonly nextCheckAtMs: number } | undefined;
}
