import type { RoleState } from './role-state.js';
import type { Clock } from '../clock.js';
import { TransportError } from '../errors/transport-error.js';
import type { Balancer } from '../balance/balancer.js';
import type { AdmissionRequest, CandidateFilter, ChainGate, KindGroup, Tier, Waiter } from './admission-model.js';
import { waitingForOf, type WaitingFor } from './waiting-for.js';
import { admissionDeadlineError, budgetExhaustedError, rateLimitedError } from './admission-errors.js';

export function abortedError(signal: AbortSignal | undefined): TransportError<'ABORTED'> {
  return new TransportError('ABORTED', 'The call was aborted by the caller', { context: {}, cause: signal?.reason });
}

/**
 * The admission loop: try candidates in order (tier ↑, reputation band,
 * rotation); when none admits, wait FIFO per kind for the earliest refill, cooldown end,
 * permit release or exclusion expiry — never past the deadline.
 */
export class Admission {
  private readonly clock: Clock;
  private readonly filter: CandidateFilter;
  private readonly chainGate: ChainGate | undefined;
  private readonly balancer: Balancer | undefined;
  private wakeAtScratch = Number.POSITIVE_INFINITY;
  /** Set by a trial when some candidate waits for something with no known instant (a permit release, a running chain check). */
  private openEndedScratch = false;
  /** Earliest instant a blocker other than a rate-limit cooldown or a refused budget ends, in the last trial. */
  private otherWakeScratch = Number.POSITIVE_INFINITY;
  /** Earliest instant a rate-limit cooldown ends, in the last trial. */
  private cooldownWakeScratch = Number.POSITIVE_INFINITY;

  constructor(clock: Clock, filter: CandidateFilter, chainGate?: ChainGate, balancer?: Balancer) {
    this.clock = clock;
    this.filter = filter;
    this.chainGate = chainGate;
    this.balancer = balancer;
  }

  acquire(request: AdmissionRequest): Promise<RoleState> {
    if (request.signal?.aborted) return Promise.reject(abortedError(request.signal));
    const { group } = request;
    if (group.queue.length === 0) {
      const role = this.tryAdmit(request, this.clock.now());
      if (role) return Promise.resolve(role);
    }
    return new Promise<RoleState>((resolve, reject) => {
      const waiter: Waiter = { request, resolve, reject, deadlineTimer: undefined, onAbort: undefined };
      group.queue.push(waiter);
      const remaining = request.deadlineMs - this.clock.now();
      waiter.deadlineTimer = this.clock.setTimer(() => {
        this.remove(waiter);
        reject(this.deadlineError(request, this.clock.now(), 'could'));
      }, remaining);
      if (request.signal) {
        const signal = request.signal;
        waiter.onAbort = () => {
          this.remove(waiter);
          reject(abortedError(signal));
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.drain(group);
    });
  }

  /** Admits at once when nobody waits and a role can take the call now (`nowMs`: the clock read the caller made for its deadline); never waits. */
  tryNow(nowMs: number, request: AdmissionRequest): RoleState | undefined {
    if (request.group.queue.length > 0 || request.signal?.aborted) return undefined;
    return this.tryAdmit(request, nowMs);
  }

  /** Re-runs the trial for waiters of `group` in FIFO order (after a release, refill or cooldown end). */
  drain(group: KindGroup): void {
    if (group.queue.length === 0) return;
    const now = this.clock.now();
    let wakeAt = Number.POSITIVE_INFINITY;
    for (const waiter of [...group.queue]) {
      const role = this.tryAdmit(waiter.request, now);
      if (role) {
        this.remove(waiter);
        waiter.resolve(role);
      } else if (!this.openEndedScratch && Number.isFinite(this.wakeAtScratch) && this.wakeAtScratch >= waiter.request.deadlineMs) {
        // Nothing can admit before the deadline: say so now instead of sleeping until it.
        this.remove(waiter);
        waiter.reject(this.tooLateError(waiter.request, now));
      } else {
        wakeAt = Math.min(wakeAt, this.wakeAtScratch);
      }
    }
    this.schedule(group, wakeAt);
  }

  /** Every candidate is blocked until after the deadline by something with a known end: say which (`admission-errors.ts`). */
  private tooLateError(request: AdmissionRequest, now: number): TransportError<'RATE_LIMITED' | 'DEADLINE_EXCEEDED' | 'BUDGET_EXHAUSTED'> {
    const { kind } = request.group;
    if (Number.isFinite(this.otherWakeScratch)) return this.deadlineError(request, now, 'can');
    if (Number.isFinite(this.cooldownWakeScratch)) return rateLimitedError(kind, Math.ceil(this.cooldownWakeScratch - now), request.timeoutMs);
    return budgetExhaustedError(kind, this.waitingFor(request, now));
  }

  /** `DEADLINE_EXCEEDED` from admission, saying what each candidate was waiting for. */
  private deadlineError(request: AdmissionRequest, now: number, tense: 'can' | 'could'): TransportError<'DEADLINE_EXCEEDED'> {
    return admissionDeadlineError(request, this.waitingFor(request, now), tense);
  }

  /** Each candidate of the request (the pin alone when pinned) and what keeps it from admitting now. */
  waitingFor(request: AdmissionRequest, now: number): WaitingFor[] {
    const filter = this.filter;
    const chainGate = this.chainGate;
    const sources = {
      exclusionOf: (role: RoleState, nowMs: number) => filter.exclusionOf?.(role, nowMs),
      chainCheckOf: (endpointId: string) => chainGate?.checkOf?.(endpointId),
    };
    const roles = request.pin ? [request.pin] : request.group.roles;
    return roles.map((role) => waitingForOf(role, now, sources, request.avoid, request.avoidUntilMs, request.method));
  }

  /** Rejects every waiter (pool close), or those `which` selects. */
  rejectAll(group: KindGroup, error: () => unknown, which?: (request: AdmissionRequest) => boolean): void {
    for (const waiter of [...group.queue]) {
      if (which && !which(waiter.request)) continue;
      this.remove(waiter);
      waiter.reject(error());
    }
  }

  private schedule(group: KindGroup, wakeAtMs: number): void {
    if (group.queue.length === 0 || !Number.isFinite(wakeAtMs)) {
      group.wakeTimer?.cancel();
      group.wakeTimer = undefined;
      group.wakeAtMs = Number.POSITIVE_INFINITY;
      return;
    }
    if (group.wakeTimer && group.wakeAtMs <= wakeAtMs) return;
    group.wakeTimer?.cancel();
    group.wakeAtMs = wakeAtMs;
    group.wakeTimer = this.clock.setTimer(() => {
      group.wakeTimer = undefined;
      group.wakeAtMs = Number.POSITIVE_INFINITY;
      this.drain(group);
    }, wakeAtMs - this.clock.now());
  }

  private remove(waiter: Waiter): void {
    const queue = waiter.request.group.queue;
    const index = queue.indexOf(waiter);
    if (index >= 0) queue.splice(index, 1);
    waiter.deadlineTimer?.cancel();
    if (waiter.onAbort) waiter.request.signal?.removeEventListener('abort', waiter.onAbort);
    if (queue.length === 0) this.schedule(waiter.request.group, Number.POSITIVE_INFINITY);
  }

  /**
   * One trial over the candidates. Returns the admitting role, or undefined with the
   * earliest useful wake-up instant left in `wakeAtScratch`.
   */
  private tryAdmit(request: AdmissionRequest, now: number): RoleState | undefined {
    // A demoted or benched role may come back by time alone: waiters must wake for that too.
    this.wakeAtScratch = this.filter.refreshDue(now);
    this.otherWakeScratch = this.wakeAtScratch;
    this.cooldownWakeScratch = Number.POSITIVE_INFINITY;
    this.openEndedScratch = false;
    const { method } = request;
    const avoid = request.avoid !== undefined && request.avoid.size > 0 ? request.avoid : undefined;
    const backingOff = avoid !== undefined && now < request.avoidUntilMs;
    if (request.pin) {
      if (backingOff && avoid.has(request.pin.endpointId)) {
        this.wakeAfterBackoff(request.pin, request.avoidUntilMs);
        return undefined;
      }
      if (request.pin.chainPending) return this.chainPending(request.pin, now);
      return !request.pin.disabled && this.tryRole(request.pin, now, method) ? request.pin : undefined;
    }
    const tiers = request.group.tiers;
    const balancer = this.balancer;
    let eligibleSeen = false;
    for (const tier of tiers) {
      const { members, rotation } = tier;
      // Best reputation band first; a blocked candidate never blocks its peers or lower tiers.
      for (let band = 0; band < 3; band++) {
        if (tier.bandCounts[band] === 0) continue;
        // The first two admissible members in rotation order; the balancer picks one.
        let first = -1;
        let second = -1;
        rotation.begin();
        for (let index = rotation.next(); index !== -1; index = rotation.next()) {
          const role = members[index]!;
          if (role.band !== band) continue;
          if (role.chainPending) {
            this.chainPending(role, now);
            continue;
          }
          if (this.filter.isExcluded(role, now)) {
            this.wake(this.filter.excludedUntil(role, now));
            continue;
          }
          eligibleSeen = true;
          if (avoid?.has(role.endpointId) || !this.admissible(role, now, method)) continue;
          if (first === -1) {
            first = index;
            if (balancer === undefined) break;
          } else {
            second = index;
            break;
          }
        }
        if (first !== -1) return this.take(tier, second !== -1 && this.switches(tier, first, second, now, request.explore) ? second : first, now, method);
      }
    }
    if (avoid && backingOff) {
      // Endpoints that already failed this call come back only after the backoff.
      for (const role of request.group.roles) if (avoid.has(role.endpointId)) this.wakeAfterBackoff(role, request.avoidUntilMs);
    } else if (avoid) {
      for (const role of request.group.roles) {
        if (avoid.has(role.endpointId) && role.band < 3 && !role.chainPending && !this.filter.isExcluded(role, now) && this.tryRole(role, now, method)) return role;
      }
    }
    if (!eligibleSeen) {
      // Pool-collapse guard: every candidate is excluded; keep the least bad rather than fail.
      const enabled = request.group.roles.filter((role) => !role.disabled && !role.chainPending);
      for (const role of this.filter.collapseGuard(enabled, now)) {
        // The guard keeps the least bad in play, but a retry still waits out its backoff.
        if (backingOff && avoid.has(role.endpointId)) {
          this.wakeAfterBackoff(role, request.avoidUntilMs);
          continue;
        }
        if (this.tryRole(role, now, method)) return role;
      }
    }
    return undefined;
  }

  /** A role whose endpoint's chain is not verified yet: never admits; starts the check when due. */
  private chainPending(role: RoleState, now: number): undefined {
    // A check in flight may verify the endpoint at any moment: no known instant.
    this.wake(this.chainGate?.pending(role, now) ?? Number.POSITIVE_INFINITY);
    return undefined;
  }

  private tryRole(role: RoleState, now: number, method: string | undefined): boolean {
    if (!this.admissible(role, now, method)) return false;
    role.admit(now, method);
    return true;
  }

  /** Whether the role could take a call of `method` now (nothing taken); notes when it could otherwise. */
  private admissible(role: RoleState, now: number, method: string | undefined): boolean {
    this.filter.settle(role, now);
    const blockedUntil = role.blockedUntil(now, method);
    if (blockedUntil === 0) return true;
    this.wake(blockedUntil, now < role.cooldownUntilMs ? 'cooldown' : role.load.credits?.refusing() === true ? 'budget' : 'other');
    return false;
  }

  /**
   * Whether the call leaves the rotation's `first` for `second`: the balancer finds `second`
   * clearly cheaper (or the call explores), and the operator cap's ceiling lets `second`'s
   * operator take one more — unless `first` is a latency outlier, which the cap yields to.
   * The rotation's own choice already follows the cap's shares; only a switch can push an
   * operator past it.
   */
  private switches(tier: Tier, first: number, second: number, now: number, explore: boolean): boolean {
    const balancer = this.balancer!;
    const [from, to] = [tier.members[first]!, tier.members[second]!];
    if (!balancer.prefersSecond(from, to, now, explore)) return false;
    const operator = tier.memberOperators[second]!;
    if (tier.ceiling === undefined || operator === tier.memberOperators[first] || tier.ceiling.allows(operator)) return true;
    return balancer.isOutlier(from, to, now);
  }

  /** Admits the call on member `index` of `tier`: its permit and token, the rotation, the ceiling's count. */
  private take(tier: Tier, index: number, now: number, method: string | undefined): RoleState {
    const role = tier.members[index]!;
    role.admit(now, method);
    tier.rotation.commit(index);
    tier.ceiling?.record(tier.memberOperators[index]!);
    return role;
  }

  /** An endpoint that failed this call returns after the backoff, and not before its own rate-limit cooldown ends. */
  private wakeAfterBackoff(role: RoleState, avoidUntilMs: number): void {
    const coolingLonger = role.cooldownUntilMs > avoidUntilMs;
    this.wake(coolingLonger ? role.cooldownUntilMs : avoidUntilMs, coolingLonger ? 'cooldown' : 'other');
  }

  /** Notes one blocker's end (a rate-limit cooldown, a refused budget, anything else); infinity means no known end (a permit release). */
  private wake(atMs: number, blocker: 'cooldown' | 'budget' | 'other' = 'other'): void {
    if (atMs === Number.POSITIVE_INFINITY) this.openEndedScratch = true;
    if (atMs < this.wakeAtScratch) this.wakeAtScratch = atMs;
    if (blocker === 'cooldown') this.cooldownWakeScratch = Math.min(this.cooldownWakeScratch, atMs);
    else if (blocker === 'other' && atMs < this.otherWakeScratch) this.otherWakeScratch = atMs;
  }
}
