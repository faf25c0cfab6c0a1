import { describe, expect, it } from 'vitest';
import { admissionStateOf } from '../../src/cli/admission-state.js';
import type { EndpointSnapshot, RoleSnapshot } from '../../src/pool/snapshot.js';

/** The demo's "state" column says what admission does with the endpoint, never "available" below the eligibility score. */

function endpoint(over: Partial<EndpointSnapshot> = {}, score = 80, cooldownRemainingMs = 0): EndpointSnapshot {
  return {
    endpointId: 'e',
    operator: 'example.com',
    maxConcurrentRequests: undefined,
    inFlight: 0,
    reputation: { score, band: score >= 70 ? 'good' : score >= 50 ? 'fair' : score >= 30 ? 'poor' : 'ineligible', cooldownRemainingMs, strikes: 0, criticalRate: 0, invalidRate: 0 },
    breakerOpenRemainingMs: 0,
    chain: 'unchecked',
    head: undefined,
    health: 'fresh',
    archival: 'unknown',
    ...over,
  };
}

const role = (cooldownRemainingMs: number, availability: RoleSnapshot['availability'] = 'available'): RoleSnapshot => ({
  endpointId: 'e', kind: 'read', tier: 0, availability, requestsPerSecond: undefined, burstCapacity: undefined, tokens: undefined,
  maxConcurrentRequests: undefined, inFlight: 0, cooldownRemainingMs, successes: 0, failures: 0, rateLimits: 0,
});

describe('admissionStateOf', () => {
  it.each([
    ['score 22, availability "available"', endpoint({}, 22), role(0), 'skipped: score 22 < eligibility 30'],
    ['score 24.9', endpoint({}, 24.9), role(0), 'skipped: score 24 < eligibility 30'],
    ['score exactly 30', endpoint({}, 30), role(0), 'admitted last: poor band (≥ 30)'],
    ['score 55', endpoint({}, 55), role(0, 'degraded'), 'admitted after good: fair band (≥ 50)'],
    ['score 80', endpoint({}, 80), role(0), 'admitted: good band (≥ 70)'],
    ['benched (score 60)', endpoint({}, 60, 252_000), role(0), 'skipped: benched, 4.2 min left'],
    ['breaker open', endpoint({ breakerOpenRemainingMs: 30_000 }, 40), role(0), 'skipped: host breaker open, 30.0 s left'],
    ['rate-limit cooldown', endpoint({}, 75), role(1_200, 'rate-limited'), 'paused: rate-limit cooldown, 1.2 s left'],
    ['wrong chain', endpoint({ chain: 'wrong-chain' }, 90), role(0), 'excluded: wrong chain'],
    ['chain not verified yet', endpoint({ chain: 'unverified' }, 80), role(0), 'waiting: chain check'],
    ['lagging 180 slots', endpoint({ health: 'lagging', head: { value: 1_000n, lag: 180n, observedAgoMs: 50 } }, 80), role(0), 'skipped: lagging 180 behind the tip'],
    ['reputation off', endpoint({ reputation: undefined }), role(0), 'admitted'],
  ])('%s → %s', (_name, e, r, expected) => {
    expect(admissionStateOf(e, r)).toBe(expected);
  });

  it('follows configured thresholds', () => {
    expect(admissionStateOf(endpoint({}, 35), role(0), { good: 90, fair: 60, eligible: 40 })).toBe('skipped: score 35 < eligibility 40');
  });
});
