/**
 * The reputation tracker and host breaker a pool's health runs on: validated from the
 * `reputation` option, keyed per endpoint, and the signal each hand-reported cause sends.
 */
import { ENGLISH_MESSAGES } from '../config/english-messages.js';
import { configIssuesOf, invalidConfig, type NormalizedEndpoint } from '../config/normalize.js';
import type { HttpTransportPoolOptions } from '../config/types.js';
import { hostBreakerConfigSchema, reputationConfigSchema } from '../reputation/config.js';
import { createHostBreaker, type HostBreaker } from '../reputation/host-breaker.js';
import { reputationKey, type ReputationKey } from '../reputation/keys.js';
import type { ReputationSignalKind } from '../reputation/signals.js';
import type { ReputationStore } from '../reputation/store.js';
import { createReputationTracker, type ReputationTracker } from '../reputation/tracker.js';
import type { FailureCause } from '../retry/causes.js';
import type { RoleState } from '../admission/role-state.js';

/** Signals for outcomes reported by hand through a permit (`recordFailure(cause)` without a classified outcome). */
export const SIGNAL_OF_CAUSE: Readonly<Record<FailureCause, ReputationSignalKind>> = {
  connection: 'major',
  timeout: 'critical',
  'rate-limited': 'minor',
  'temporary-http': 'major',
  'endpoint-rejected': 'major',
  request: 'none',
  'rpc-application': 'none',
  'invalid-response': 'critical',
  capability: 'none',
  aborted: 'none',
};
export const BREAKER_CAUSES: ReadonlySet<FailureCause> = new Set(['connection', 'timeout', 'temporary-http', 'invalid-response']);

export interface Health {
  readonly tracker: ReputationTracker;
  readonly breaker: HostBreaker;
  readonly keyOf: ReadonlyMap<string, ReputationKey>;
}

export function createHealth(options: HttpTransportPoolOptions, endpoints: readonly NormalizedEndpoint[], store: ReputationStore | undefined): Health {
  const { hostBreaker, ...settings } = (options.reputation ?? {}) as Record<string, unknown>;
  const latency = (settings['latency'] ?? {}) as Record<string, unknown>;
  const withProfile = { ...settings, latency: { profile: options.chain ?? 'generic', ...latency } };
  const reputation = reputationConfigSchema.safeParse(withProfile, ENGLISH_MESSAGES);
  const breaker = hostBreakerConfigSchema.safeParse(hostBreaker ?? {}, ENGLISH_MESSAGES);
  const issues = [
    ...(reputation.success ? [] : configIssuesOf(reputation.error, 'reputation')),
    ...(breaker.success ? [] : configIssuesOf(breaker.error, 'reputation.hostBreaker')),
  ];
  if (!reputation.success || !breaker.success) throw invalidConfig(issues);
  const tracker = createReputationTracker({ config: reputation.data, ...(store ? { store } : {}) });
  const keyOf = new Map(
    endpoints.map((e) => [e.id, reputationKey(reputation.data.granularity, { url: e.url, endpointId: e.id, domain: e.operator })] as const),
  );
  return { tracker, breaker: createHostBreaker({ config: breaker.data }), keyOf };
}

/** Runs `perKey` once per reputation key and `perHost` once per host among `roles` (entries sharing a URL share both). */
export function eachKeyAndHost(keyOf: ReadonlyMap<string, ReputationKey>, roles: readonly RoleState[], perKey: (role: RoleState) => void, perHost: (role: RoleState) => void): void {
  const keys = new Set<ReputationKey>();
  const hosts = new Set<string>();
  for (const role of roles) {
    const key = keyOf.get(role.endpointId)!;
    if (!keys.has(key)) {
      keys.add(key);
      perKey(role);
    }
    if (!hosts.has(role.endpoint.breakerKey)) {
      hosts.add(role.endpoint.breakerKey);
      perHost(role);
    }
  }
}
