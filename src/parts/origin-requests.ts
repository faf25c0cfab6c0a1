/**
 * The pool's side of proofs (`RpcRequester.requestWithOrigin` and `trustedHead`): one call
 * answered by a named endpoint of an operator not excluded, and the head two operators
 * vouch for. Built on what exists — a call pinned to an endpoint, the heads observed from
 * answers — so the request path itself is untouched.
 */
import type { RoleState } from '../admission/role-state.js';
import type { Clock } from '../clock.js';
import { isTransportError, TransportError } from '../errors/transport-error.js';
import { trustedHeadOf, type OperatorHead } from '../health/trusted-head.js';
import type { RequestKind } from '../retry/causes.js';
import type { EndpointHealthState, EndpointHeadView } from './endpoint-health.js';
import type { HeadKind, OriginatedAnswer, OriginRequestOptions, RequestOptions } from '../api/request-options.js';

/** What the origin requests need from the pool's health wiring. */
export interface OriginHealth {
  stateOf(index: number, nowMs: number): EndpointHealthState;
  headOf(index: number, nowMs: number): EndpointHeadView | undefined;
}

/** What the origin requests need from the pool. */
export interface OriginPool {
  kindOf(method: string, options: RequestOptions): RequestKind;
  request(method: string, params: readonly unknown[], options: RequestOptions): Promise<unknown>;
}

/** Fresh endpoints first, then those with no head yet, lagging ones, and those out of rotation last. */
const STATE_ORDER: Readonly<Record<EndpointHealthState, number>> = { fresh: 0, unknown: 1, lagging: 2, 'out-of-rotation': 3 };

export interface OriginRequests {
  requestWithOrigin(method: string, params: readonly unknown[], options: OriginRequestOptions): Promise<OriginatedAnswer>;
  trustedHead(kind: HeadKind): bigint | undefined;
}

export function createOriginRequests(
  roles: readonly RoleState[],
  clock: Clock,
  chain: 'solana' | 'evm' | 'generic' | undefined,
  health: OriginHealth,
  pool: OriginPool,
): OriginRequests {
  // A pool of a known chain counts one quantity; a generic one answers with whatever its endpoints report.
  const chainQuantity: HeadKind | undefined = chain === 'solana' ? 'slot' : chain === 'evm' ? 'block' : undefined;
  /** The roles that may answer: serving the kind, on the chain, of an operator not excluded, known at or past `minHead` when set; best first (health, tier, index). */
  const candidates = (kind: RequestKind, excluded: ReadonlySet<string>, minHead: bigint | undefined): RoleState[] => {
    const now = clock.now();
    const reached = (role: RoleState) => minHead === undefined || (health.headOf(role.endpoint.index, now)?.value ?? -1n) >= minHead;
    return roles
      .filter((role) => role.settings.kind === kind && !role.disabled && !excluded.has(role.endpoint.operator) && reached(role))
      .map((role) => ({ role, rank: STATE_ORDER[health.stateOf(role.endpoint.index, now)] }))
      .sort((a, b) => a.rank - b.rank || a.role.settings.tier - b.role.settings.tier || a.role.endpoint.index - b.role.endpoint.index)
      .map(({ role }) => role);
  };

  return {
    async requestWithOrigin(method, params, options) {
      const { excludeOperators, minHead, ...rest } = options;
      const kind = pool.kindOf(method, rest);
      const roles = candidates(kind, new Set(excludeOperators ?? []), minHead);
      if (roles.length === 0) {
        const context = minHead === undefined ? { kind } : { kind, minHead: minHead.toString() };
        throw new TransportError('NO_ENDPOINT', `No endpoint of another operator serves '${kind}' requests${minHead === undefined ? '' : ` at head ${minHead} or past it`}`, { context });
      }
      const deadlineMs = rest.timeoutMs === undefined ? undefined : clock.now() + rest.timeoutMs;
      let last: unknown;
      // Each endpoint in turn, pinned (its own retries on it), until one answers or time is up.
      for (const role of roles) {
        const leftMs = deadlineMs === undefined ? role.settings.requestTimeoutMs : deadlineMs - clock.now();
        if (leftMs <= 0) break;
        try {
          const value = await pool.request(method, params, { ...rest, endpoint: role.endpointId, timeoutMs: Math.min(leftMs, role.settings.requestTimeoutMs) });
          return { value, endpointId: role.endpointId, operator: role.endpoint.operator };
        } catch (error) {
          if (!isTransportError(error) || error.code === 'ABORTED' || error.code === 'POOL_CLOSED' || error.code === 'INVALID_INPUT') throw error;
          last = error;
        }
      }
      throw last ?? new TransportError('DEADLINE_EXCEEDED', `No endpoint answered '${method}' in time`, { context: { timeoutMs: rest.timeoutMs ?? 0 }, method });
    },

    trustedHead(kind) {
      if (chainQuantity !== undefined && chainQuantity !== kind) return undefined;
      const now = clock.now();
      const heads: OperatorHead[] = [];
      const operators = new Set<string>();
      const seen = new Set<number>();
      for (const role of roles) {
        const index = role.endpoint.index;
        if (seen.has(index) || role.disabled) continue;
        seen.add(index);
        operators.add(role.endpoint.operator);
        const head = health.headOf(index, now);
        if (head !== undefined) heads.push({ operator: role.endpoint.operator, value: head.value });
      }
      // A pool of one operator has nobody else to vouch: its word is all the pool has.
      if (operators.size === 1) return heads.reduce<bigint | undefined>((best, head) => (best === undefined || head.value > best ? head.value : best), undefined);
      return trustedHeadOf(heads);
    },
  };
}
