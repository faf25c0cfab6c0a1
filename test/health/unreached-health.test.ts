/**
 * A node that stopped answering is not `health: 'fresh'` in the snapshot, even when the tip
 * has not moved since its last head (three anvils mining nothing, one killed): its last head
 * says nothing about it now. Admission is unchanged by this: the failures move its reputation
 * and the host breaker, which take it out of rotation (`out-of-rotation`).
 */
import { describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/clock.js';
import type { ExecuteRequest, RawOutcome } from '../../src/http/executor.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { createFakeClock } from '../../src/testing/fake-clock.js';
import { createScriptedExecutor, ok } from '../helpers/scripted-executor.js';
import { track } from '../pool/pool-fixtures.js';

const REFUSED: RawOutcome = { type: 'error', kind: 'connect', dispatched: false, code: 'ECONNREFUSED' };

describe('health of a node that stopped answering', () => {
  it("reads 'unknown' after its attempt fails to connect, and 'fresh' again once it answers", async () => {
    const clock = createFakeClock();
    const down = new Set<string>();
    const executor = createScriptedExecutor();
    for (const id of ['a', 'b']) {
      // A chain that does not move: slot 500 everywhere, so no head ever ages.
      executor.script(id, (_request: ExecuteRequest, rpcId: number) => (down.has(id) ? REFUSED : ok(500, rpcId)));
    }
    const pool = new HttpTransportPool({
      endpoints: ['a', 'b'].map((id) => ({ id, url: `https://${id}.example-rpc.com/` })),
      chain: 'solana',
      clock,
      random: createSeededRandom(5),
      executor,
      retry: { maxRetries: 0 },
    });
    const healthOf = (id: string) => pool.snapshot().endpoints.find((e) => e.endpointId === id)?.health;
    const slotFrom = async (endpoint: string) => {
      const call = track(pool.request('getSlot', [], { endpoint }), clock);
      await clock.flush();
      return call;
    };
    expect((await slotFrom('a')).value).toBe(500);
    expect((await slotFrom('b')).value).toBe(500);
    expect([healthOf('a'), healthOf('b')]).toEqual(['fresh', 'fresh']);

    down.add('a');
    expect((await slotFrom('a')).error).toMatchObject({ code: 'RETRIES_EXHAUSTED', attempts: [{ endpointId: 'a', cause: 'connection' }] });
    expect(executor.countFor('a')).toBe(2);
    expect([healthOf('a'), healthOf('b')]).toEqual(['unknown', 'fresh']);

    down.delete('a');
    expect((await slotFrom('a')).value).toBe(500);
    expect(healthOf('a')).toBe('fresh');
    await pool.close();
  });
});
