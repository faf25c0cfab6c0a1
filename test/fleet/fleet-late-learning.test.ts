import { afterEach, describe, expect, it } from 'vitest';
import { TokenBucket } from '../../src/admission/token-bucket.js';
import type { EndpointConfig } from '../../src/config/types.js';
import type { RawOutcome } from '../../src/http/executor.js';
import { createFakeClock, type FakeClock } from '../../src/testing/fake-clock.js';
import { ok } from '../helpers/scripted-executor.js';
import { createMemoryBackend } from './memory-backend.js';
import { closeMembers, drive, member } from './fleet-members.js';

/**
 * A role with no configured rate in a fleet (issue 30 §3): nobody limits it until its provider
 * refuses; then each process that is refused joins the fleet's one tuner of the role's budget,
 * instead of learning a rate of its own — two processes that learned alone would each send
 * the whole limit. Deterministic: coordinators with their own pools on one in-memory store, a
 * fake clock, one hidden limit the executors share (what the provider saw).
 */

afterEach(closeMembers);

const LIMIT = 30;
const UNLIMITED: EndpointConfig = { id: 'free', url: 'https://free.example.com/', tier: 0, kinds: ['read'] };

/** A provider's limit as the other learned-rate tests model it: a token bucket of LIMIT/s and one second's burst; above it, a 429 that names no delay. */
function hiddenLimit(clock: FakeClock) {
  const provider = new TokenBucket(LIMIT, LIMIT, clock.now());
  const arrivals: { atMs: number; accepted: boolean }[] = [];
  const script = (_request: unknown, id: number): RawOutcome => {
    const accepted = provider.tryTake(clock.now());
    arrivals.push({ atMs: clock.now(), accepted });
    return accepted ? ok(1, id) : { type: 'response', status: 429, headers: {}, body: '' };
  };
  const between = (fromMs: number, toMs: number) => arrivals.filter((a) => a.atMs >= fromMs && a.atMs < toMs);
  return { script, between };
}

describe('a role with no configured rate in a fleet', () => {
  it('learns one rate for the fleet once refused: the provider sees about its limit, not twice it', async () => {
    const clock = createFakeClock();
    const backend = createMemoryBackend(clock);
    const server = hiddenLimit(clock);
    const options = { retry: { maxRetries: 0 }, cache: false } as const;
    const members = ['a', 'b'].map((id) => member(clock, backend, id, [UNLIMITED], { free: server.script }, { ...options, expectedMembers: 2 }));
    await drive(clock, members, 30_000, 4);

    // Both processes were refused and joined one tuner: the same learned rate in each.
    const rates = members.map((m) => m.pool.snapshot().roles[0]!.learnedRequestsPerSecond);
    expect(rates[0]).toBeDefined();
    expect(rates[1]).toBe(rates[0]);
    // After 15 s the fleet sends about the limit (within 10 %, over 15 s: the provider's burst is one second of it), and few of its requests are refused.
    const late = server.between(15_000, 30_000);
    const sentPerSecond = late.length / 15;
    console.log(`late learning: ${sentPerSecond} req/s sent, ${(late.filter((a) => !a.accepted).length / late.length * 100).toFixed(1)} % refused, one learned rate of ${rates[0]!.toFixed(1)} req/s`);
    expect(sentPerSecond).toBeLessThanOrEqual(LIMIT * 1.1);
    expect(sentPerSecond).toBeGreaterThanOrEqual(LIMIT * 0.5);
    expect(late.filter((a) => !a.accepted).length / late.length).toBeLessThanOrEqual(0.1);
    expect(backend.commands["tune"]).toBeGreaterThan(0);
  });
});
