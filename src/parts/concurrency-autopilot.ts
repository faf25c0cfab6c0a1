/**
 * The learned concurrency's part (issue 30 §1): each answer of a `maxConcurrentRequests:
 * 'auto'` endpoint is a latency sample for its limit (a timed-out attempt one at least as
 * long as it ran), and a moved limit is published as `concurrency-learned` — at most once a
 * second per endpoint, since Gradient2 moves a little on every answer (the snapshot and the
 * gauge show the limit of the moment). Only a pool with such an endpoint registers it.
 */
import { GradientLimit } from '../admission/gradient-limit.js';
import type { EndpointLoad, RoleState } from '../admission/role-state.js';
import type { PoolEvents } from '../api/events.js';
import type { Clock } from '../clock.js';
import type { NormalizedEndpoint } from '../config/normalize.js';
import type { OutcomeReporter } from './permit-host.js';

/** How often a moving limit is told, per endpoint, in ms. */
export const CONCURRENCY_EVENT_INTERVAL_MS = 1_000;

/** The learned limit of an endpoint with `maxConcurrentRequests: 'auto'`; undefined otherwise. */
export function gradientLimitOf(endpoint: NormalizedEndpoint): GradientLimit | undefined {
  return endpoint.learnedConcurrency === undefined ? undefined : new GradientLimit(endpoint.learnedConcurrency);
}

/** The reporter of the pool's learned concurrencies; undefined when no endpoint learns one. */
export function concurrencyAutopilotReporter(roles: readonly RoleState[], clock: Clock, events: PoolEvents): OutcomeReporter | undefined {
  if (!roles.some((role) => role.load.concurrency !== undefined)) return undefined;
  const told = new Map<EndpointLoad, { limit: number; atMs: number }>();
  const sample = (role: RoleState, latencyMs: number): void => {
    const load = role.load;
    const concurrency = load.concurrency;
    if (concurrency === undefined) return;
    const before = load.max;
    load.max = concurrency.onSample(latencyMs, load.inFlight);
    // Most answers leave the integer limit where it was: no clock read, no event.
    if (load.max === before) return;
    const nowMs = clock.now();
    const last = told.get(load) ?? { limit: concurrency.settings.start, atMs: Number.NEGATIVE_INFINITY };
    if (load.max === last.limit || nowMs - last.atMs < CONCURRENCY_EVENT_INTERVAL_MS) return;
    told.set(load, { limit: load.max, atMs: nowMs });
    events.emit('concurrency-learned', { atMs: nowMs, endpointId: role.endpointId, fromLimit: last.limit, toLimit: load.max });
  };
  return {
    onSuccess: sample,
    onFailure: (role, cause, _failure, elapsedMs) => {
      if (cause === 'timeout' && elapsedMs !== undefined) sample(role, elapsedMs);
    },
  };
}
