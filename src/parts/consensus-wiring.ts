/**
 * The pool's side of consensus reads (`pipeline/consensus.ts`): which operators a read may ask
 * now, best first, and the integrity strike an outlier's endpoint gets. Operators are judged
 * as admission judges their endpoints (reputation, breaker, lag, chain): an operator none of
 * whose endpoints admission could use is not asked, since its turn would only wait.
 */
import type { RoleState } from '../admission/role-state.js';
import type { Clock } from '../clock.js';
import type { DriftAllowance } from '../consensus/agreement.js';
import type { ConsensusCounters } from '../consensus/consensus-snapshot.js';
import { failureOf } from '../http/classify.js';
import type { ConsensusParts, OperatorChoice } from '../pipeline/consensus.js';
import type { RequestKind } from '../retry/causes.js';
import type { PermitHost } from '../admission/permit.js';

/** What the wiring reads of the pool. */
export interface ConsensusPool {
  readonly roles: readonly RoleState[];
  readonly clock: Clock;
  /** Whether admission keeps `role` out now (reputation, breaker, lag). */
  isExcluded(role: RoleState, nowMs: number): boolean;
  readonly permits: Pick<PermitHost, 'onFailure'>;
}

interface OperatorRoles {
  readonly operator: string;
  readonly roles: RoleState[];
  readonly choice: OperatorChoice;
}

/** An outlier's answer as a failure: `invalid-response` (`integrity`, check `consensus`), critical, fed to the invalid-rate detector. */
const OUTLIER = failureOf('integrity', { check: 'consensus' });

export function consensusParts(
  pool: ConsensusPool,
  allowance: DriftAllowance,
  counters: ConsensusCounters,
  timeoutMsOf: ConsensusParts['timeoutMsOf'],
): ConsensusParts {
  const byKind = new Map<RequestKind, readonly OperatorRoles[]>();
  /** A kind's operators, each with the endpoint ids a call to it avoids (every other operator's), built once. */
  const operatorsOfKind = (kind: RequestKind): readonly OperatorRoles[] => {
    let operators = byKind.get(kind);
    if (operators !== undefined) return operators;
    const roles = pool.roles.filter((role) => role.settings.kind === kind);
    const names = [...new Set(roles.map((role) => role.endpoint.operator))];
    operators = names.map((operator) => {
      const own = roles.filter((role) => role.endpoint.operator === operator);
      const others = new Set(roles.filter((role) => role.endpoint.operator !== operator).map((role) => role.endpointId));
      return { operator, roles: own, choice: { operator, others } };
    });
    byKind.set(kind, operators);
    return operators;
  };
  // Equal operators take turns (a counter, not a random draw): a pool of three spreads its consensus reads over all three.
  let turn = 0;
  return {
    allowance,
    counters,
    timeoutMsOf,
    operatorsOf(kind) {
      const now = pool.clock.now();
      const operators = operatorsOfKind(kind);
      const start = turn++ % Math.max(1, operators.length);
      const ranked: { readonly choice: OperatorChoice; readonly band: number; readonly tier: number; readonly order: number }[] = [];
      operators.forEach((operator, index) => {
        let band = Number.POSITIVE_INFINITY;
        let tier = Number.POSITIVE_INFINITY;
        for (const role of operator.roles) {
          if (role.disabled || role.chainPending || pool.isExcluded(role, now)) continue;
          band = Math.min(band, role.band);
          tier = Math.min(tier, role.settings.tier);
        }
        if (band !== Number.POSITIVE_INFINITY) ranked.push({ choice: operator.choice, band, tier, order: (index - start + operators.length) % operators.length });
      });
      ranked.sort((a, b) => a.tier - b.tier || a.band - b.band || a.order - b.order);
      return ranked.map((entry) => entry.choice);
    },
    strike(endpointId, kind) {
      const role = pool.roles.find((candidate) => candidate.endpointId === endpointId && candidate.settings.kind === kind);
      if (role !== undefined) pool.permits.onFailure(role, 'invalid-response', OUTLIER, undefined);
    },
  };
}
