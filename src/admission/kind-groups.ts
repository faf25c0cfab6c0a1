import type { RoleState } from './role-state.js';
import type { Clock, Random } from '../clock.js';
import { OperatorCeiling } from '../balance/operator-ceiling.js';
import { createTierRotation, planTier } from '../concentration/tier-plan.js';
import { isCapFeasible } from '../concentration/water-fill.js';
import type { RequestKind } from '../retry/causes.js';
import type { KindGroup, Tier } from './admission-model.js';
import type { PoolEvents } from '../api/events.js';

/**
 * Groups roles by kind, then by priority tier (ascending), and gives each tier its
 * rotation: plain round-robin on the fast path, or the weighted rotation the operator cap
 * calls for (one `reshape` event per reshaped tier). The rotation starts at a random
 * member (injected random), so a fleet of bots started together does not hit the same
 * endpoint first.
 */
export function buildKindGroups(
  roles: readonly RoleState[],
  random: Random,
  maxOperatorShare: number,
  events: PoolEvents,
  clock: Clock,
  timeoutMs: number | undefined,
): Map<RequestKind, KindGroup> {
  const byKind = new Map<RequestKind, RoleState[]>();
  for (const role of roles) {
    const list = byKind.get(role.settings.kind) ?? [];
    list.push(role);
    byKind.set(role.settings.kind, list);
  }
  const groups = new Map<RequestKind, KindGroup>();
  for (const [kind, kindRoles] of byKind) {
    const tierNumbers = [...new Set(kindRoles.map((role) => role.settings.tier))].sort((a, b) => a - b);
    const tiers: Tier[] = tierNumbers.map((tier) => {
      const members = kindRoles.filter((role) => role.settings.tier === tier);
      const plan = planTier({ tier, memberOperators: members.map((role) => role.endpoint.operator), maxOperatorShare });
      const reshape = plan.reshape;
      // Emitted after construction returns, so `pool.on('reshape', …)` right after `new` sees it.
      if (reshape) queueMicrotask(() => events.emit('reshape', { atMs: clock.now(), kind, ...reshape }));
      const bandCounts = [0, 0, 0, 0, 0];
      for (const role of members) {
        bandCounts[role.band]!++;
        role.tierBandCounts = bandCounts;
      }
      const operatorCount = plan.operators.length;
      // The cap as a ceiling wherever it can bind: latency may otherwise push traffic onto one operator.
      const ceiling =
        maxOperatorShare > 0 && maxOperatorShare < 1 && operatorCount > 1 && isCapFeasible(maxOperatorShare, operatorCount)
          ? new OperatorCeiling(maxOperatorShare, operatorCount)
          : undefined;
      return {
        tier,
        members,
        bandCounts,
        rotation: createTierRotation(plan, Math.floor(random() * members.length)),
        ceiling,
        memberOperators: plan.memberOperators,
      };
    });
    groups.set(kind, {
      kind,
      roles: kindRoles,
      tiers,
      defaultTimeoutMs: timeoutMs ?? defaultCallTimeoutMs(kindRoles.map((role) => role.settings.requestTimeoutMs)),
      queue: [],
      enabledRoles: kindRoles.length,
      wakeTimer: undefined,
      wakeAtMs: Number.POSITIVE_INFINITY,
    });
  }
  return groups;
}

/**
 * The default deadline of a call: the largest attempt limit plus the smallest, so a call
 * whose first attempt runs into its endpoint's `requestTimeoutMs` still has time for one
 * attempt elsewhere, whichever endpoint it met first.
 */
export function defaultCallTimeoutMs(requestTimeoutsMs: readonly number[]): number {
  return Math.max(...requestTimeoutsMs) + Math.min(...requestTimeoutsMs);
}

/**
 * A call's deadline budget, in ms, as admission gives it: its own `timeoutMs`, else its pinned
 * endpoint's `requestTimeoutMs`, else the kind's default. NaN when no endpoint serves the kind.
 */
export function callTimeoutMsOf(group: KindGroup | undefined, options: { readonly timeoutMs?: number | undefined; readonly endpoint?: string | undefined }): number {
  if (options.timeoutMs !== undefined) return options.timeoutMs;
  if (group === undefined) return Number.NaN;
  if (options.endpoint === undefined) return group.defaultTimeoutMs;
  return group.roles.find((role) => role.endpointId === options.endpoint)?.settings.requestTimeoutMs ?? Number.NaN;
}
