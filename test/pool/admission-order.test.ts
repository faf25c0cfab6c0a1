import { describe, expect, it } from 'vitest';
import type { RoleSettings } from '../../src/config/types.js';
import type { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { acquireNow, createTestPool, endpoint, ids, track } from './pool-fixtures.js';

type Block = 'concurrency' | 'rps' | 'cooldown';

/** Settings that let `a` be blocked, and how to block it, for each kind of saturation. */
const blocks: Record<Block, { settings: RoleSettings; block: (pool: HttpTransportPool) => Promise<void> }> = {
  concurrency: {
    settings: { maxConcurrentRequests: 1 },
    block: async (pool) => void (await pool.acquireForRequestKind('read', { endpoint: 'a' })),
  },
  rps: {
    settings: { requestsPerSecond: 1 },
    block: async (pool) => (await pool.acquireForRequestKind('read', { endpoint: 'a' })).release(),
  },
  cooldown: {
    settings: {},
    block: async (pool) => {
      const permit = await pool.acquireForRequestKind('read', { endpoint: 'a' });
      permit.recordRateLimited(2_000);
      permit.release();
    },
  },
};

describe('order of trial', () => {
  for (const mode of ['concurrency', 'rps', 'cooldown'] as const) {
    it(`falls through at once to a peer in the same tier when the other is blocked by ${mode}`, async () => {
      const t = createTestPool([endpoint('a', blocks[mode].settings), endpoint('b')]);
      await blocks[mode].block(t.pool);
      expect(ids(await acquireNow(t, 4))).toEqual(['b', 'b', 'b', 'b']);
    });

    it(`falls through at once to a lower tier when tier 0 is blocked by ${mode}`, async () => {
      const t = createTestPool([endpoint('a', { ...blocks[mode].settings, tier: 0 }), endpoint('b', { tier: 1 })]);
      await blocks[mode].block(t.pool);
      const permits = await acquireNow(t, 3);
      expect(ids(permits)).toEqual(['b', 'b', 'b']);
      expect(permits.map((p) => p.tier)).toEqual([1, 1, 1]);
    });
  }

  it('never lets a blocked preferred candidate delay its peer, whatever the rotation start', async () => {
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const t = createTestPool([endpoint('a', { requestsPerSecond: 1 }), endpoint('b')], { seed });
      const got = ids(await acquireNow(t, 6));
      expect(got.filter((id) => id === 'a')).toHaveLength(1);
      expect(got.filter((id) => id === 'b')).toHaveLength(5);
    }
  });

  it('uses a cooled-down endpoint again as soon as its cooldown is over', async () => {
    const t = createTestPool([endpoint('a'), endpoint('b')]);
    await blocks.cooldown.block(t.pool);
    await t.clock.advance(1_999);
    expect(ids(await acquireNow(t, 2))).toEqual(['b', 'b']);
    await t.clock.advance(1);
    expect(ids(await acquireNow(t, 2))).toContain('a');
  });

  it('rotates exactly round-robin inside a tier when every member admits', async () => {
    const t = createTestPool([endpoint('a'), endpoint('b'), endpoint('c')]);
    const got = ids(await acquireNow(t, 9));
    expect(new Set(got.slice(0, 3)).size).toBe(3);
    got.forEach((id, i) => expect(id).toBe(got[i % 3]));
  });

  it('starts the rotation at a random member per pool instance, reproducibly for one seed', async () => {
    const firstFor = async (seed: number) => {
      const { pool } = createTestPool([endpoint('a'), endpoint('b'), endpoint('c')], { seed });
      return (await pool.acquireForRequestKind('read')).endpointId;
    };
    const firsts = await Promise.all(Array.from({ length: 12 }, (_, seed) => firstFor(seed)));
    expect(new Set(firsts).size).toBeGreaterThan(1);
    expect(await firstFor(7)).toBe(await firstFor(7));
  });

  it('uses a tier-1 endpoint only while tier 0 cannot admit', async () => {
    const t = createTestPool([
      endpoint('a1', { maxConcurrentRequests: 1 }),
      endpoint('a2', { maxConcurrentRequests: 1 }),
      endpoint('b', { tier: 1 }),
    ]);
    const tier0 = await acquireNow(t, 2);
    expect(new Set(ids(tier0))).toEqual(new Set(['a1', 'a2']));
    expect(ids(await acquireNow(t, 1))).toEqual(['b']);
    tier0[0]?.release();
    expect(ids(await acquireNow(t, 1))).toEqual([tier0[0]?.endpointId]);
  });

  it('never touches a lower tier while the top tier admits', async () => {
    const t = createTestPool([endpoint('low', { tier: 1 }), endpoint('top', { tier: 0 })]);
    expect(ids(await acquireNow(t, 10))).toEqual(Array(10).fill('top'));
  });
});

describe('pins, kinds and per-role overrides', () => {
  it('restricts a pinned call to that endpoint, waiting for it even when a peer is free', async () => {
    const { pool, clock } = createTestPool([endpoint('a'), endpoint('b', { maxConcurrentRequests: 1 })]);
    const held = await pool.acquireForRequestKind('read', { endpoint: 'b' });
    const toA = await Promise.all([1, 2, 3].map(() => pool.acquireForRequestKind('read', { endpoint: 'a' })));
    expect(ids(toA)).toEqual(['a', 'a', 'a']);
    const pinned = track(pool.acquireForRequestKind('read', { endpoint: 'b', timeoutMs: 1_000 }), clock);
    await clock.advance(100);
    expect(pinned.settled).toBe(false);
    held.release();
    await clock.flush();
    expect(pinned.value?.endpointId).toBe('b');
  });

  it('rejects a pin to an unknown endpoint with NO_ENDPOINT', async () => {
    const { pool } = createTestPool([endpoint('a')]);
    await expect(pool.acquireForRequestKind('read', { endpoint: 'nope' })).rejects.toMatchObject({ code: 'NO_ENDPOINT' });
  });

  it('rejects a kind no endpoint serves with NO_ENDPOINT at once, sending nothing', async () => {
    const { pool, clock, executor } = createTestPool([endpoint('a', { kinds: ['read'] })]);
    const submit = track(pool.acquireForRequestKind('submit', { timeoutMs: 5_000 }), clock);
    await clock.flush();
    expect(submit.atMs).toBe(0);
    expect(submit.error).toMatchObject({ code: 'NO_ENDPOINT' });
    await expect(pool.acquireForMethod('sendTransaction')).rejects.toMatchObject({ code: 'NO_ENDPOINT' });
    await expect(pool.request('sendTransaction', ['AQID'])).rejects.toMatchObject({ code: 'NO_ENDPOINT' });
    expect(executor.received).toHaveLength(0);
    expect((await pool.acquireForRequestKind('read')).endpointId).toBe('a');
  });

  it('applies a per-role override only to its own kind', async () => {
    const t = createTestPool([endpoint('a', { roles: { submit: { requestsPerSecond: 1 } } })]);
    expect(await acquireNow(t, 10, 'read')).toHaveLength(10);
    await acquireNow(t, 1, 'submit');
    const second = track(t.pool.acquireForRequestKind('submit', { timeoutMs: 5_000 }), t.clock);
    await t.clock.advance(999);
    expect(second.settled).toBe(false);
    expect(await acquireNow(t, 5, 'read')).toHaveLength(5);
    await t.clock.advance(1);
    expect(second.atMs).toBe(1_000);
    const roles = t.pool.snapshot().roles;
    expect(roles.find((r) => r.kind === 'submit')?.requestsPerSecond).toBe(1);
    expect(roles.find((r) => r.kind === 'read')?.requestsPerSecond).toBeUndefined();
  });
});
