/**
 * The learned rates' part (issue 30 §1). It tells each learned bucket about the rate limits
 * its role met — with the provider's hints — and turns every move of a learned rate into a
 * `rate-learned` event (which the logger and the exporters read; the gauge reads the
 * snapshot). It hooks rate limits only, never successes: the everyday path does not see it.
 *
 * A role with no configured rate keeps no limit until its provider refuses it: on its first
 * rate limit that names no delay (or that names an allowed rate) it starts learning, from
 * the rate it was being answered at. So a node that never throttles is never throttled
 * here, and one that does is no longer hammered. In a fleet it joins the fleet's one tuner of
 * its budget instead (`LateLearner`), so N processes do not learn N rates.
 */
import { isLearning, LearnedBucket, type LearningBucket } from '../admission/learned-bucket.js';
import { DEFAULT_LEARNED_RATE, type LearnedRateSettings } from '../admission/learned-rate.js';
import type { RoleState } from '../admission/role-state.js';
import type { PoolEvents } from '../api/events.js';
import type { Clock } from '../clock.js';
import type { OutcomeReporter } from './permit-host.js';

/** Requests the role has had answered, of any kind. */
const answeredOf = (role: RoleState): number => role.successes + role.failures + role.rateLimits;

/**
 * The rate a role with no limit was answered at when its provider first refused it: its
 * answers since the pool started over the time since, counted over at least one second (so a
 * first burst does not read as a huge rate), and never below the learned floor.
 */
export function firstLearnedRps(answered: number, elapsedMs: number): number {
  return Math.max(DEFAULT_LEARNED_RATE.minRps, Math.min(DEFAULT_LEARNED_RATE.maxRps, (answered * 1000) / Math.max(1000, elapsedMs)));
}

/**
 * Where a role that starts learning gets its learned bucket: in a fleet, the fleet's one tuner
 * for the role's budget (undefined: learn alone).
 */
export type LateLearner = (role: RoleState, settings: LearnedRateSettings) => LearningBucket | undefined;

/** The reporter of the pool's learned rates. */
export function rateAutopilotReporter(roles: readonly RoleState[], clock: Clock, events: PoolEvents, lateLearner?: LateLearner): OutcomeReporter {
  const startedAtMs = clock.now();
  const listen = (role: RoleState, bucket: LearningBucket): void => {
    const { endpointId } = role;
    const { kind } = role.settings;
    bucket.listener = (fromRps, toRps, reason, atMs) => events.emit('rate-learned', { atMs, endpointId, kind, fromRps, toRps, reason });
  };
  for (const role of roles) if (isLearning(role.bucket)) listen(role, role.bucket);
  return {
    onRateLimited: (role, providerDelayMs, allowedRps) => {
      const bucket = role.bucket;
      const nowMs = clock.now();
      if (isLearning(bucket)) {
        bucket.onRateLimited(nowMs, { delayMs: providerDelayMs, allowedRps });
        return;
      }
      // A fixed rate (or a fleet's shared bucket of one) is the user's word; a delay is the provider's pacing.
      if (bucket !== undefined || role.settings.requestsPerSecond !== undefined) return;
      if (allowedRps === undefined && providerDelayMs !== undefined && providerDelayMs > 0) return;
      const startRps = allowedRps ?? firstLearnedRps(answeredOf(role), nowMs - startedAtMs);
      const settings = { ...DEFAULT_LEARNED_RATE, startRps: Math.min(DEFAULT_LEARNED_RATE.maxRps, Math.max(DEFAULT_LEARNED_RATE.minRps, startRps)) };
      const learned = lateLearner?.(role, settings) ?? new LearnedBucket(settings, 1, nowMs);
      role.bucket = learned;
      listen(role, learned);
      const { endpointId } = role;
      events.emit('rate-learned', { atMs: nowMs, endpointId, kind: role.settings.kind, fromRps: Number.POSITIVE_INFINITY, toRps: learned.rateRps, reason: allowedRps === undefined ? 'rate-limited' : 'provider-hint' });
    },
  };
}
