/**
 * Which endpoints a read at a floor (`minHead`) must not go to: those whose known head is
 * below it, or not known at all (nothing says they have reached it). Read from endpoint
 * health's heads when a call sets `minHead` (a session's read), never on another call.
 */
import type { RoleState } from '../admission/role-state.js';

/**
 * The endpoint ids of `roles` not known to be at or past `minHead`: undefined when every one
 * is, null when none is (the call cannot be served at the floor now).
 */
export function endpointsBelowHead(roles: readonly RoleState[], minHead: bigint, headOf: (index: number) => bigint | undefined): ReadonlySet<string> | undefined | null {
  let below: Set<string> | undefined;
  let reached = false;
  for (const role of roles) {
    if (role.disabled) continue;
    const head = headOf(role.endpoint.index);
    if (head !== undefined && head >= minHead) reached = true;
    else (below ??= new Set()).add(role.endpointId);
  }
  return reached ? below : null;
}
