/**
 * The learned rates' part (issue 30 §1): registered only when some role has
 * `requestsPerSecond: 'auto'`, so a pool without one pays nothing. It tells each learned
 * bucket what the provider answered — accepted answers, rate limits and their hints — and
 * turns every move of a learned rate into a `rate-learned` event (which the logger and the
 * exporters read; the gauge reads the snapshot).
 */
import { LearnedBucket } from '../admission/learned-bucket.js';
import type { RoleState } from '../admission/role-state.js';
import type { PoolEvents } from '../api/events.js';
import type { Clock } from '../clock.js';
import type { OutcomeReporter } from './permit-host.js';

/** The reporter of the pool's learned rates; undefined when no role learns one. */
export function rateAutopilotReporter(roles: readonly RoleState[], clock: Clock, events: PoolEvents): OutcomeReporter | undefined {
  const learning = roles.filter((role) => role.bucket instanceof LearnedBucket);
  if (learning.length === 0) return undefined;
  for (const role of learning) {
    const { endpointId } = role;
    const { kind } = role.settings;
    (role.bucket as LearnedBucket).listener = (fromRps, toRps, reason, atMs) => events.emit('rate-learned', { atMs, endpointId, kind, fromRps, toRps, reason });
  }
  return {
    onSuccess: (role) => {
      const bucket = role.bucket;
      if (bucket instanceof LearnedBucket) bucket.onSuccess();
    },
    onRateLimited: (role, providerDelayMs, allowedRps) => {
      const bucket = role.bucket;
      if (bucket instanceof LearnedBucket) bucket.onRateLimited(clock.now(), { delayMs: providerDelayMs, allowedRps });
    },
  };
}
