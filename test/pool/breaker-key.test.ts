import { describe, expect, it } from 'vitest';
import type { BreakerEvent } from '../../src/api/events.js';
import { breakerKeyOf } from '../../src/config/breaker-key.js';
import type { RawOutcome } from '../../src/http/executor.js';
import { createTestPool, track, type TestPool } from './pool-fixtures.js';

/**
 * One host circuit breaker per host AND port, or per `operator` when the endpoint names one:
 * a bad node on one port of 127.0.0.1 leaves the nodes on its other ports in rotation.
 */

const REFUSED: RawOutcome = { type: 'error', kind: 'connect', dispatched: false, code: 'ECONNREFUSED' };
/** Every score counts as `good`: only the breaker (and the strikes) move endpoints. */
const FLAT_BANDS = { bands: { good: 0, fair: 0 }, eligibleScore: 0 };

function breakerEvents(t: TestPool): BreakerEvent[] {
  const events: BreakerEvent[] = [];
  t.pool.on('breaker', (e) => events.push(e));
  return events;
}

/** `count` sequential reads, each completing without time passing; requests each endpoint received meanwhile. */
async function reads(t: TestPool, count: number): Promise<Record<string, number>> {
  const from = t.executor.received.length;
  for (let i = 0; i < count; i++) {
    const read = track(t.pool.request('getSlot', []), t.clock);
    await t.clock.flush();
    expect(read.settled && read.error === undefined).toBe(true);
  }
  const seen: Record<string, number> = {};
  for (const r of t.executor.received.slice(from)) seen[r.endpointId] = (seen[r.endpointId] ?? 0) + 1;
  return seen;
}

describe('host breaker key', () => {
  it('a node refusing connections on 127.0.0.1:8899 opens a breaker over it alone; the node on 127.0.0.1:8900 keeps serving', async () => {
    const t = createTestPool(
      [
        { id: 'bad', url: 'http://127.0.0.1:8899' },
        { id: 'good', url: 'http://127.0.0.1:8900' },
      ],
      { reputation: FLAT_BANDS, health: false },
    );
    t.executor.script('bad', REFUSED);
    const events = breakerEvents(t);
    await reads(t, 10);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ endpointIds: ['bad'], state: 'open' });
    const good = t.pool.snapshot().endpoints.find((e) => e.endpointId === 'good');
    expect(good?.breakerOpenRemainingMs).toBe(0);
    expect(await reads(t, 6)).toEqual({ good: 6 });
  });

  it('endpoints behind one host and port with distinct operators have a breaker each', async () => {
    const t = createTestPool(
      [
        { id: 'bad', url: 'http://127.0.0.1:8899/a', operator: 'provider-a' },
        { id: 'good', url: 'http://127.0.0.1:8899/b', operator: 'provider-b' },
      ],
      { reputation: FLAT_BANDS, health: false },
    );
    t.executor.script('bad', REFUSED);
    const events = breakerEvents(t);
    await reads(t, 10);
    expect(events.map((e) => e.endpointIds)).toEqual([['bad']]);
    expect(t.pool.snapshot().endpoints.find((e) => e.endpointId === 'good')?.breakerOpenRemainingMs).toBe(0);
  });

  it('keys by host and port (the default port folded in), or by a non-blank operator', () => {
    expect(breakerKeyOf('http://127.0.0.1:8899')).not.toBe(breakerKeyOf('http://127.0.0.1:8900'));
    expect(breakerKeyOf('https://rpc.example.com/a')).toBe(breakerKeyOf('https://RPC.example.com:443/b?k=1'));
    expect(breakerKeyOf('http://127.0.0.1:8899', 'p')).toBe(breakerKeyOf('http://127.0.0.1:8900', ' p '));
    expect(breakerKeyOf('http://127.0.0.1:8899', '  ')).toBe(breakerKeyOf('http://127.0.0.1:8899'));
  });
});
