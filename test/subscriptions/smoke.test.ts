import { afterEach, describe as suite, expect, it } from 'vitest';
import { HttpTransportPool } from '../../src/index.js';
import { createFixtureServer, type FixtureServer } from '../../src/testing/index.js';
import { describe, readUntil, slotsOf } from './helpers.js';

const servers: FixtureServer[] = [];
const pools: HttpTransportPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

suite('smoke', () => {
  it('slots flow and a drop rebinds', async () => {
    const a = await createFixtureServer({ fixtures: [], websocket: { slotIntervalMs: 20 } });
    const b = await createFixtureServer({ fixtures: [], websocket: { slotIntervalMs: 20, startSlot: 1000 } });
    servers.push(a, b);
    const pool = new HttpTransportPool({
      endpoints: [
        { id: 'a', url: a.url, wsUrl: a.wsUrl!, tier: 0 },
        { id: 'b', url: b.url, wsUrl: b.wsUrl!, tier: 1 },
      ],
      subscriptions: { initialBackoffMs: 10, maxBackoffMs: 50 },
    });
    pools.push(pool);
    const sub = await pool.subscribe('slotSubscribe', []);
    const first = await readUntil(sub, (_i, all) => all.length >= 3);
    a.ws!.drop();
    const after = await readUntil(sub, (_i, all) => all.some((x) => x.kind === 'rebind') && all.length > 5);
    console.log(describe([...first, ...after]));
    expect(slotsOf(first).length).toBe(3);
    await sub.close();
  });
});
