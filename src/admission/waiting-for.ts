import type { RoleState } from './role-state.js';
import type { WaitingFor, WaitingReason } from '../errors/waiting-for.js';
import type { FailureCause } from '../retry/causes.js';

export type { WaitingFor, WaitingReason };

/**
 * Why a call that timed out in admission could not be admitted: one entry per candidate
 * endpoint, read from the same state the admission trial reads, in the trial's order of
 * checks. Pure: roles and hooks in, plain data out (endpoint ids only, never a URL).
 */

/** What reputation and the host breaker say about an excluded role. */
export interface Exclusion {
  readonly reason: 'breaker' | 'benched' | 'below-threshold' | 'lagging';
  /** When it may end by time alone (Infinity when only new signals can end it). */
  readonly untilMs: number;
}

/** The hooks the explanation reads (admission's filter and chain gate provide them). */
export interface WaitingSources {
  exclusionOf(role: RoleState, nowMs: number): Exclusion | undefined;
  chainCheckOf(endpointId: string): { readonly lastCause: FailureCause | undefined; readonly nextCheckAtMs: number } | undefined;
}

/** Why `role` cannot take a call at `nowMs`. `avoid`/`avoidUntilMs`: the call's retry backoff. */
export function waitingForOf(
  role: RoleState,
  nowMs: number,
  sources: WaitingSources,
  avoid: ReadonlySet<string> | undefined,
  avoidUntilMs: number,
  method?: string,
): WaitingFor {
  const endpointId = role.endpointId;
  const lastCause = role.lastFailureCause;
  const entry = (reason: WaitingReason, cause: FailureCause | undefined, untilMs?: number): WaitingFor => ({
    endpointId,
    reason,
    ...(cause === undefined ? {} : { lastCause: cause }),
    ...(untilMs === undefined || !Number.isFinite(untilMs) || untilMs <= nowMs ? {} : { remainingMs: Math.ceil(untilMs - nowMs) }),
  });
  if (role.disabled) return entry('wrong-chain', undefined);
  if (role.chainPending) {
    const check = sources.chainCheckOf(endpointId);
    return entry('chain-check', check?.lastCause, check?.nextCheckAtMs);
  }
  const exclusion = sources.exclusionOf(role, nowMs);
  if (exclusion !== undefined) return entry(exclusion.reason, lastCause, exclusion.untilMs);
  if (avoid?.has(endpointId) && nowMs < avoidUntilMs) return entry('backoff', lastCause, avoidUntilMs);
  if (nowMs < role.cooldownUntilMs) return entry('cooldown', 'rate-limited', role.cooldownUntilMs);
  const blockedUntil = role.blockedUntil(nowMs, method);
  if (blockedUntil > 0 && role.load.credits?.refusing() === true) return entry('budget', undefined, blockedUntil);
  if (blockedUntil === Number.POSITIVE_INFINITY) return entry('concurrency', undefined);
  if (blockedUntil > 0) return entry('rate', undefined, blockedUntil);
  return entry('queued', undefined);
}

const WORDS: Readonly<Record<WaitingReason, string>> = {
  'chain-check': 'chain check not passed',
  'wrong-chain': 'on another chain',
  breaker: 'host breaker open',
  benched: 'benched by reputation',
  'below-threshold': 'reputation below the eligibility score',
  lagging: 'lagging behind the chain tip',
  backoff: 'retry backoff',
  cooldown: 'rate-limit cooldown',
  budget: 'monthly credits spent',
  rate: 'requestsPerSecond budget spent',
  concurrency: 'all maxConcurrentRequests permits in use',
  queued: 'serving earlier calls',
};

/** `primary: chain check not passed (last: connection); backup: rate-limit cooldown, 1200 ms left` — ids only. */
export function describeWaitingFor(waitingFor: readonly WaitingFor[]): string {
  return waitingFor
    .map((w) => {
      const last = w.lastCause === undefined || w.reason === 'cooldown' ? '' : ` (last: ${w.lastCause})`;
      const left = w.remainingMs === undefined ? '' : `, ${w.remainingMs} ms left`;
      return `${w.endpointId}: ${WORDS[w.reason]}${last}${left}`;
    })
    .join('; ');
}
