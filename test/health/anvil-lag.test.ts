/**
 * Real anvil nodes (one chain: same `--timestamp`, `--no-mining`): a node 50 blocks behind
 * gets no reads until it catches up; a node killed and restarted on its port gets reads again
 * within 2 probe intervals. The pool runs on a fake clock (probe intervals are exact); the
 * sockets are real, so each step waits for the requests in flight to end.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/clock.js';
import type { HttpExecutor } from '../../src/http/executor.js';
import { createUndiciExecutor } from '../../src/http/undici-executor.js';
import type { HeadEvent, ProbeEvent } from '../../src/api/events.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { createFakeClock, type FakeClock } from '../../src/testing/fake-clock.js';
import { startAnvil, type AnvilInstance } from '../helpers/anvil.js';

const NO_MINING = ['--no-mining'];
const PROBE_INTERVAL_MS = 1_000;
let anvils: AnvilInstance[] = [];

beforeAll(async () => {
  anvils = await Promise.all([0, 1, 2].map(() => startAnvil({ args: NO_MINING })));
}, 30_000);

afterAll(async () => {
  await Promise.all(anvils.map((anvil) => anvil.stop()));
});

async function rpc(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return ((await response.json()) as { result?: unknown }).result;
}

const mine = (anvil: AnvilInstance, blocks: number) => rpc(anvil.url, 'anvil_mine', [`0x${blocks.toString(16)}`]);

/** The undici executor, counting requests in flight so a step can wait for the real I/O to end. */
function countingExecutor(): HttpExecutor & { readonly inFlight: number } {
  const inner = createUndiciExecutor();
  let inFlight = 0;
  return {
    get inFlight() {
      return inFlight;
    },
    async execute(request) {
      inFlight++;
      try {
        return await inner.execute(request);
      } finally {
        inFlight--;
      }
    },
    close: () => inner.close(),
  };
}

async function settled(executor: { readonly inFlight: number }): Promise<void> {
  for (let i = 0; i < 500 && executor.inFlight > 0; i++) await new Promise((resolve) => setTimeout(resolve, 2));
  await new Promise((resolve) => setTimeout(resolve, 2));
}

describe('lagging and restarted anvil nodes', () => {
  it('keeps reads off a node 50 blocks behind until it catches up, and readmits a restarted node within 2 probe intervals', async () => {
    await Promise.all([mine(anvils[0]!, 50), mine(anvils[1]!, 50)]);
    const clock: FakeClock = createFakeClock();
    const executor = countingExecutor();
    const pool = new HttpTransportPool({
      endpoints: anvils.map((anvil, i) => ({ id: `anvil-${i}`, url: anvil.url })),
      chain: 'evm',
      clock,
      random: createSeededRandom(4),
      executor,
      concentration: { maxOperatorShare: 0 },
      // The three anvils share one host (127.0.0.1): keep the host breaker out of this test.
      reputation: { hostBreaker: { minFailures: 1_000_000 } },
      health: { probeIntervalMs: PROBE_INTERVAL_MS },
    });
    const heads: HeadEvent[] = [];
    const probes: ProbeEvent[] = [];
    const served: Record<string, number> = {};
    pool.on('head', (e) => heads.push(e));
    pool.on('probe', (e) => probes.push(e));
    pool.on('success', (e) => {
      if (e.method === 'eth_blockNumber') served[e.endpointId] = (served[e.endpointId] ?? 0) + 1;
    });
    const reads = async (count: number, stepMs = 100) => {
      const before = { ...served };
      for (let i = 0; i < count; i++) {
        await pool.request('eth_blockNumber');
        await clock.advance(stepMs);
        await settled(executor);
      }
      return Object.fromEntries(Object.keys({ ...served, 'anvil-0': 0, 'anvil-1': 0, 'anvil-2': 0 }).map((id) => [id, (served[id] ?? 0) - (before[id] ?? 0)]));
    };
    try {
      await reads(9);
      expect(heads).toEqual([expect.objectContaining({ endpointId: 'anvil-2', state: 'lagging', head: 0n, tip: 50n, lag: 50n, syncAllowance: 16 })]);
      expect((await reads(30))['anvil-2']).toBe(0);

      await mine(anvils[2]!, 50);
      for (let i = 0; i < 40 && heads.length < 2; i++) await reads(1);
      expect(heads[1]).toMatchObject({ endpointId: 'anvil-2', state: 'fresh', head: 50n });
      expect((await reads(30))['anvil-2']).toBeGreaterThanOrEqual(8);

      // Kill anvil-0: calls fail over; it leaves the good band and the bench loop probes it.
      const port = anvils[0]!.port;
      await anvils[0]!.stop();
      const down = await reads(20, 500);
      expect(down['anvil-1']! + down['anvil-2']!).toBe(20);
      expect((await reads(10, 500))['anvil-0']).toBe(0);
      expect(probes.some((e) => e.endpointId === 'anvil-0' && e.outcome === 'failed')).toBe(true);
      // Restart on the same port (a fresh chain at block 0, mined to the others' head at once).
      anvils[0] = await startAnvil({ args: NO_MINING, port });
      await mine(anvils[0], 50);
      const restartedAt = clock.now();
      let firstReadAfterMs: number | undefined;
      for (let i = 0; i < 60 && firstReadAfterMs === undefined; i++) {
        if ((await reads(1, 100))['anvil-0']! > 0) firstReadAfterMs = clock.now() - restartedAt;
      }
      expect(firstReadAfterMs).toBeDefined();
      expect(firstReadAfterMs!).toBeLessThanOrEqual(2 * PROBE_INTERVAL_MS);
      expect(probes.filter((e) => e.endpointId === 'anvil-0' && e.readmitted === true)).toHaveLength(1);
    } finally {
      await pool.close();
    }
  }, 60_000);
});
