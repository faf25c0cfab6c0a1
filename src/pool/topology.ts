import type { RoleState } from '../admission/role-state.js';
import type { Random } from '../clock.js';
import type { RequestKind } from '../retry/causes.js';
import type { KindGroup, Tier } from './admission.js';
import type { PoolEvents } from './events.js';
import { RoundRobinRotation } from './tier-rotation.js';

/**
 * Groups roles by kind, then by priority tier (ascending). Each tier gets its own rotation,
 * started at a random member (injected random), so a fleet of bots started together does
 * not hit the same endpoint first.
 */
export function buildKindGroups(
  roles: readonly RoleState[],
  random: Random,
  maxOperatorShare: number | undefined,
  events: PoolEvents,
  nowMs: number,
): Map<RequestKind, KindGroup> {
  void maxOperatorShare;
  void events;
  void nowMs;
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
      return { tier, members, rotation: new RoundRobinRotation(members.length, Math.floor(random() * members.length)) };
    });
    groups.set(kind, {
      kind,
      roles: kindRoles,
      tiers,
      minTimeoutMs: Math.min(...kindRoles.map((role) => role.settings.requestTimeoutMs)),
      queue: [],
      wakeTimer: undefined,
      wakeAtMs: Number.POSITIVE_INFINITY,
    });
  }
  return groups;
}
