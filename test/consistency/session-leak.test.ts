import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { answerAfter, ok } from '../helpers/scripted-executor.js';
import { createTestPool } from '../pool/pool-fixtures.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

function heapAfterGc(): number {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

describe('sessions leave nothing', () => {
  it('100 000 short-lived sessions, each reading once, leave timers at zero and the heap at the baseline', async () => {
    const t = createTestPool([{ id: 'a', url: 'https://a.example.com/' }, { id: 'b', url: 'https://b.example.com/' }], { hedge: false });
    let slot = 1_000;
    t.executor.script('a', answerAfter(t.clock, 0, { context: { slot: 0 }, value: 1 }));
    // Every answer a slot later: each session's floor rises, and its next read would carry it.
    t.executor.script('b', (_request, id) => ok({ context: { slot: slot++ }, value: 1 }, id));
    const run = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const session = t.pool.session();
        await session.request('getBalance', ['addr'], { endpoint: 'b' });
        expect(session.floor('slot')).toBeDefined();
      }
      // The scripted executor logs every request (what "the server" saw): not the pool's memory.
      expect(t.executor.countFor('b')).toBe(count);
      t.executor.received.length = 0;
    };
    await run(2_000);
    const baseline = heapAfterGc();
    await run(100_000);
    const after = heapAfterGc();
    console.log(`100 000 sessions: heap ${((after - baseline) / 1024).toFixed(0)} KiB from the baseline, timers ${t.clock.pendingTimers}`);
    expect(t.clock.pendingTimers).toBe(0);
    expect(after - baseline).toBeLessThan(1024 * 1024);
    await t.pool.close();
  }, 120_000);
});
