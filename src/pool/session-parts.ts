/** What the sessions of a pool reach of its parts (`consistency/session-host.ts`): the clock, call budgets, the heads endpoint health knows, and pinned calls. */
import type { SessionPoolParts } from '../consistency/session-host.js';
import { endpointsBelowHead } from '../parts/head-floor.js';
import type { PoolParts } from './assemble.js';

export function sessionPartsOf(parts: PoolParts): SessionPoolParts {
  const { clock, admission, endpointHealth, path } = parts;
  return {
    clock,
    timeoutMsOf: (method, options) => parts.timeoutMsOf(method, options),
    behind(method, minHead) {
      const roles = admission.groups.get(parts.classify(method, {}).kind)?.roles ?? [];
      const below = endpointsBelowHead(roles, minHead, (index) => endpointHealth.headOf(index, clock.now())?.value);
      return { endpointIds: below === null ? roles.filter((role) => !role.disabled).map((role) => role.endpointId) : [...(below ?? [])], reached: below !== null };
    },
    request: (method, params, options) => path.request(method, params, options),
  };
}
