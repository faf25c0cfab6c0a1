/**
 * The pool's admission of calls: permits for a kind (now or after a wait), a hedge's permit
 * (another operator first), a pinned call's checks, and what a chain verdict or pool.close()
 * does to the waiters. Wraps the admitter (`admission/admitter.ts`) with the pool's kind
 * groups; the request path reaches it through its host (`pipeline/host.ts`).
 */
import { abortedError, type Admission } from '../admission/admitter.js';
import type { KindGroup } from '../admission/admission-model.js';
import type { AcquireOptions, RetryAvoidance } from '../admission/acquire-options.js';
import { HttpRequestPermit, permitRole, type PermitHost } from '../admission/permit.js';
import type { Clock } from '../clock.js';
import type { NormalizedEndpoint } from '../config/normalize.js';
import { poolClosedError, TransportError } from '../errors/transport-error.js';
import type { RequestKind } from '../retry/causes.js';
import { chainMismatchError } from '../parts/chain-guard.js';

export class PoolAdmission {
  closed = false;
  /** The POOL_CLOSED error once the pool is closed. */
  closedError: TransportError<'POOL_CLOSED'> | undefined;
  readonly #clock: Clock;
  readonly #admission: Admission;
  readonly #groups: ReadonlyMap<RequestKind, KindGroup>;
  readonly #endpoints: readonly NormalizedEndpoint[];
  readonly #expectedChain: string;
  #permitHost: PermitHost | undefined;
  /** Endpoint ids per operator (a hedge prefers another operator). */
  readonly #sameOperator = new Map<string, Set<string>>();

  constructor(clock: Clock, admission: Admission, groups: ReadonlyMap<RequestKind, KindGroup>, endpoints: readonly NormalizedEndpoint[], expectedChain: string) {
    this.#clock = clock;
    this.#admission = admission;
    this.#groups = groups;
    this.#endpoints = endpoints;
    this.#expectedChain = expectedChain;
    for (const endpoint of endpoints) {
      const ids = this.#sameOperator.get(endpoint.operator) ?? new Set<string>();
      ids.add(endpoint.id);
      this.#sameOperator.set(endpoint.operator, ids);
    }
  }

  /** What permits report to: set once, when the parts it fans out to exist. */
  reportTo(permitHost: PermitHost): void {
    this.#permitHost = permitHost;
  }

  get groups(): ReadonlyMap<RequestKind, KindGroup> {
    return this.#groups;
  }

  /** Calls of `kind` waiting for admission. */
  waiting(kind: RequestKind): number {
    return this.#groups.get(kind)?.queue.length ?? 0;
  }

  /** Lets the waiters of `kind` look again. */
  drain(kind: RequestKind): void {
    const group = this.#groups.get(kind);
    if (group && !this.closed) this.#admission.drain(group);
  }

  /** Lets every kind's waiters look again (a check or probe changed what admission may take). */
  drainAll(): void {
    for (const group of this.#groups.values()) this.#admission.drain(group);
  }

  /** The permit when a role admits right now; undefined otherwise (every error case is `acquire`'s to report). `method`: what a credit plan prices. */
  tryAcquire(kind: RequestKind, options: AcquireOptions, avoid?: RetryAvoidance, explore = false, method?: string): HttpRequestPermit | undefined {
    const group = this.#groups.get(kind);
    if (this.closed || !group || group.enabledRoles === 0 || options.endpoint !== undefined) return undefined;
    const timeoutMs = options.timeoutMs ?? group.defaultTimeoutMs;
    if (!(timeoutMs > 0) || !Number.isFinite(timeoutMs)) return undefined;
    const now = this.#clock.now();
    const deadlineMs = now + timeoutMs;
    const role = this.#admission.tryNow(now, {
      group,
      pin: undefined,
      avoid: avoid?.endpoints,
      avoidUntilMs: avoid?.untilMs ?? 0,
      deadlineMs,
      timeoutMs,
      signal: options.signal,
      explore,
      method,
    });
    return role && new HttpRequestPermit(role, this.#permitHost!, deadlineMs);
  }

  /** A permit for a hedge of `primary`'s call, now or never: PATH's rule — not the first attempt's operator when another can take it; never the same endpoint. */
  tryHedgePermit(kind: RequestKind, primary: HttpRequestPermit, signal: AbortSignal | undefined, method: string): HttpRequestPermit | undefined {
    const timeoutMs = primary.deadlineMs - this.#clock.now();
    const never = Number.POSITIVE_INFINITY;
    const role = permitRole(primary);
    const sameOperator = this.#sameOperator.get(role.endpoint.operator)!;
    return (
      this.tryAcquire(kind, { timeoutMs, signal }, { endpoints: sameOperator, untilMs: never }, false, method) ??
      (sameOperator.size > 1 ? this.tryAcquire(kind, { timeoutMs, signal }, { endpoints: new Set([role.endpointId]), untilMs: never }, false, method) : undefined)
    );
  }

  acquire(kind: RequestKind, options: AcquireOptions, avoid?: RetryAvoidance, explore = false, method?: string): Promise<HttpRequestPermit> {
    if (this.closed) return Promise.reject(poolClosedError());
    if (options.signal?.aborted) return Promise.reject(abortedError(options.signal));
    const group = this.#groups.get(kind);
    const pin = options.endpoint === undefined ? undefined : group?.roles.find((role) => role.endpointId === options.endpoint);
    if (!group || (options.endpoint !== undefined && !pin)) return Promise.reject(this.#noEndpoint(kind, options.endpoint));
    if (group.enabledRoles === 0 || pin?.disabled) return Promise.reject(chainMismatchError(this.#expectedChain, kind, pin?.endpointId));
    const timeoutMs = options.timeoutMs ?? (pin ? pin.settings.requestTimeoutMs : group.defaultTimeoutMs);
    if (!(timeoutMs > 0) || !Number.isFinite(timeoutMs)) {
      return Promise.reject(new TransportError('INVALID_INPUT', 'timeoutMs must be a finite number > 0', { context: { field: 'timeoutMs' } }));
    }
    const deadlineMs = this.#clock.now() + timeoutMs;
    return this.#admission
      .acquire({ group, pin, avoid: avoid?.endpoints, avoidUntilMs: avoid?.untilMs ?? 0, deadlineMs, timeoutMs, signal: options.signal, explore, method })
      .then((role) => new HttpRequestPermit(role, this.#permitHost!, deadlineMs));
  }

  /** The chain guard found `endpointId` on another chain: out of every kind for good; calls that can no longer be served fail now. */
  excludeEndpoint(endpointId: string): void {
    for (const group of this.#groups.values()) {
      const role = group.roles.find((candidate) => candidate.endpointId === endpointId);
      if (!role || role.disabled) continue;
      role.disable();
      group.enabledRoles--;
      const kind = group.kind;
      if (group.enabledRoles === 0) this.#admission.rejectAll(group, () => chainMismatchError(this.#expectedChain, kind, undefined));
      else this.#admission.rejectAll(group, () => chainMismatchError(this.#expectedChain, kind, endpointId), (request) => request.pin === role);
    }
  }

  /** pool.close(): every waiter fails `POOL_CLOSED`. */
  close(): void {
    this.closed = true;
    this.closedError = poolClosedError();
    for (const group of this.#groups.values()) this.#admission.rejectAll(group, poolClosedError);
  }

  #noEndpoint(kind: RequestKind, pinned: string | undefined): TransportError<'NO_ENDPOINT'> {
    if (pinned === undefined) return new TransportError('NO_ENDPOINT', `No endpoint serves '${kind}' requests`, { context: { kind } });
    // Echo a pin only when it is a configured id: a caller may have passed a URL (with its key) by mistake.
    if (this.#endpoints.some((endpoint) => endpoint.id === pinned)) {
      return new TransportError('NO_ENDPOINT', `Endpoint '${pinned}' does not serve '${kind}' requests`, {
        context: { kind, pinnedEndpoint: pinned },
      });
    }
    return new TransportError('NO_ENDPOINT', `The pinned endpoint is not a configured endpoint id (kind '${kind}')`, { context: { kind } });
  }
}
