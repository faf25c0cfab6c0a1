import { describe, expect, it } from 'vitest';
import { TransportError } from '../../src/errors/transport-error.js';
import { answerAfter, hangUntilAborted } from '../helpers/scripted-executor.js';
import { createTestPool, endpoint, track } from '../pool/pool-fixtures.js';

/**
 * Coalesced reads, each caller with its own result and its own deadline: what each caller
 * gets and when, and how many requests the (scripted) node received, on a fake clock.
 */

const ACCOUNT = '83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaoBRRS3w5a';
const INFO = { context: { slot: 7 }, value: { lamports: 5, owner: '11111111111111111111111111111111' } };
type Info = typeof INFO;

describe('each caller gets its own copy', () => {
  it("the first caller mutating its result in its own reaction changes nothing for a caller that joined", async () => {
    const t = createTestPool([endpoint('a')]);
    t.executor.script('a', answerAfter(t.clock, 10, INFO));
    const first = t.pool.request('getAccountInfo', [ACCOUNT]).then((r) => {
      (r as Info).value.lamports = -1;
      return r as Info;
    });
    const joiner = t.pool.request('getAccountInfo', [ACCOUNT]) as Promise<Info>;
    await t.clock.advance(10);
    expect((await first).value.lamports).toBe(-1);
    expect((await joiner).value.lamports).toBe(5);
    expect(t.executor.received).toHaveLength(1);
  });

  it('the same when the first caller brought a signal, and when a joiner mutates: nobody sees anyone else’s change', async () => {
    const t = createTestPool([endpoint('a')]);
    t.executor.script('a', answerAfter(t.clock, 10, INFO));
    const mutate = (r: unknown, lamports: number) => {
      (r as Info).value.lamports = lamports;
      return r as Info;
    };
    const first = t.pool.request('getAccountInfo', [ACCOUNT], { signal: new AbortController().signal }).then((r) => mutate(r, -1));
    const second = t.pool.request('getAccountInfo', [ACCOUNT]).then((r) => mutate(r, -2));
    const third = t.pool.request('getAccountInfo', [ACCOUNT]) as Promise<Info>;
    await t.clock.advance(10);
    expect([(await first).value.lamports, (await second).value.lamports, (await third).value.lamports]).toEqual([-1, -2, 5]);
    expect(t.executor.received).toHaveLength(1);
  });

  it('the same for a read that went in a micro-batch', async () => {
    const t = createTestPool([endpoint('a')], { batch: { waitMs: 0 } });
    t.executor.script('a', (request) => {
      const items = JSON.parse(request.body) as { id: number }[];
      const body = JSON.stringify(items.map((item) => ({ jsonrpc: '2.0', id: item.id, result: INFO })));
      return { type: 'response', status: 200, headers: { 'content-type': 'application/json' }, body };
    });
    const first = t.pool.request('getAccountInfo', [ACCOUNT]).then((r) => {
      (r as Info).value.lamports = -1;
      return r as Info;
    });
    const joiner = t.pool.request('getAccountInfo', [ACCOUNT]) as Promise<Info>;
    const other = t.pool.request('getAccountInfo', ['other']) as Promise<Info>;
    await t.clock.advance(1);
    expect([(await first).value.lamports, (await joiner).value.lamports, (await other).value.lamports]).toEqual([-1, 5, 5]);
    // One batch request of two items: the two identical reads took one.
    expect(t.executor.received).toHaveLength(1);
  });
});

describe('a joiner keeps its own deadline', () => {
  it('a read with timeoutMs 1000 joining an identical hung read 800 ms in fails at its own deadline (1 800 ms), naming 1000 ms', async () => {
    const t = createTestPool([endpoint('a')]);
    t.executor.script('a', hangUntilAborted);
    const first = track(t.pool.request('getAccountInfo', [ACCOUNT], { timeoutMs: 1_000 }), t.clock);
    await t.clock.advance(800);
    const joiner = track(t.pool.request('getAccountInfo', [ACCOUNT], { timeoutMs: 1_000 }), t.clock);
    await t.clock.advance(200);
    expect(first.error).toMatchObject({ code: 'DEADLINE_EXCEEDED', context: { timeoutMs: 1_000 } });
    // The shared request ran out of its first caller's time, not the joiner's: it goes on alone.
    expect(joiner.settled).toBe(false);
    expect(t.executor.received).toHaveLength(2);
    await t.clock.advance(799);
    expect(joiner.settled).toBe(false);
    await t.clock.advance(1);
    expect(joiner.atMs).toBe(1_800);
    expect(joiner.error).toBeInstanceOf(TransportError);
    expect(joiner.error).toMatchObject({ code: 'DEADLINE_EXCEEDED', context: { timeoutMs: 1_000 } });
    expect((joiner.error as Error).message).toContain('within 1000 ms');
  });

  it('a joiner that goes on alone gets the answer its own request brings, within its own deadline', async () => {
    const t = createTestPool([endpoint('a')]);
    t.executor.script('a', hangUntilAborted, answerAfter(t.clock, 50, INFO));
    const first = track(t.pool.request('getAccountInfo', [ACCOUNT], { timeoutMs: 1_000 }), t.clock);
    await t.clock.advance(800);
    const joiner = track(t.pool.request('getAccountInfo', [ACCOUNT], { timeoutMs: 1_000 }), t.clock);
    await t.clock.advance(250);
    expect(first.error).toMatchObject({ code: 'DEADLINE_EXCEEDED' });
    expect(joiner.value).toEqual(INFO);
    expect(joiner.atMs).toBe(1_050);
  });

  it('joiners that outlive the shared request share again: one new request for them, each failing at its own deadline', async () => {
    const t = createTestPool([endpoint('a')]);
    t.executor.script('a', hangUntilAborted);
    const call = () => track(t.pool.request('getAccountInfo', [ACCOUNT]), t.clock);
    const reads = () => t.executor.countFor('a', 'getAccountInfo');
    // The pool's default deadline (no timeoutMs): each caller's counts from its own call.
    const first = call();
    await t.clock.advance(100);
    const joiners = [call(), call()];
    await t.clock.advance(100);
    joiners.push(call());
    await t.clock.flush();
    expect(reads()).toBe(1);
    for (let step = 0; step < 300 && !first.settled; step++) await t.clock.advance(100);
    const timeoutMs = (first.error as TransportError<'DEADLINE_EXCEEDED'>).context.timeoutMs;
    expect(first.atMs).toBe(timeoutMs);
    // The first call's attempt and its retry; then one request for all three joiners.
    expect(reads()).toBe(3);
    await t.clock.advance(200);
    expect(joiners.map((j) => j.atMs)).toEqual([timeoutMs + 100, timeoutMs + 100, timeoutMs + 200]);
    expect(joiners.map((j) => (j.error as TransportError<'DEADLINE_EXCEEDED'>).context.timeoutMs)).toEqual([timeoutMs, timeoutMs, timeoutMs]);
    // And one for the last joiner's last 100 ms.
    expect(reads()).toBe(4);
  });

  it("a pinned joiner without timeoutMs keeps its endpoint's requestTimeoutMs, counted from its own call", async () => {
    const t = createTestPool([endpoint('a', { requestTimeoutMs: 1_000 }), endpoint('b')]);
    t.executor.script('a', hangUntilAborted);
    const first = track(t.pool.request('getAccountInfo', [ACCOUNT], { endpoint: 'a' }), t.clock);
    await t.clock.advance(300);
    const joiner = track(t.pool.request('getAccountInfo', [ACCOUNT], { endpoint: 'a' }), t.clock);
    await t.clock.advance(1_000);
    expect([first.atMs, joiner.atMs]).toEqual([1_000, 1_300]);
    expect(joiner.error).toMatchObject({ code: 'DEADLINE_EXCEEDED', context: { timeoutMs: 1_000 } });
    expect([t.executor.countFor('a', 'getAccountInfo'), t.executor.countFor('b')]).toEqual([2, 0]);
  });

  it('a joiner leaving on its own signal is not sent again', async () => {
    const t = createTestPool([endpoint('a')]);
    t.executor.script('a', hangUntilAborted);
    const first = track(t.pool.request('getAccountInfo', [ACCOUNT], { timeoutMs: 1_000 }), t.clock);
    await t.clock.advance(800);
    const controller = new AbortController();
    const joiner = track(t.pool.request('getAccountInfo', [ACCOUNT], { timeoutMs: 1_000, signal: controller.signal }), t.clock);
    await t.clock.advance(100);
    controller.abort();
    await t.clock.advance(200);
    expect(joiner.error).toMatchObject({ code: 'ABORTED' });
    expect(first.error).toMatchObject({ code: 'DEADLINE_EXCEEDED' });
    expect(t.executor.received).toHaveLength(1);
  });
});
