import { afterEach, describe, expect, it } from 'vitest';
import { createFakeClock } from '../../src/testing/index.js';
import type { ConsensusEvent } from '../../src/api/events.js';
import type { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { closeAllServers } from '../helpers/loopback.js';
import { closePools, rejection } from '../helpers/pools.js';
import { lyingFleet, type NodeScript } from '../helpers/lying-nodes.js';

/**
 * Issue 28 §2 over real loopback sockets: a node that returns a wrong balance on 10 % of its
 * calls, among two honest ones (three operators). With `consensus: { operators: 2 }` no wrong
 * value reaches the caller and the liar's score falls; without it, some do.
 */

afterEach(async () => {
  await closePools();
  await closeAllServers();
});

const ADDRESS = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T';
const BALANCE = 5_000_000;
const answerAt = (value: number) => ({ context: { slot: 300, apiVersion: '2.0.15' }, value });
const honest: NodeScript = (method) => (method === 'getBalance' ? answerAt(BALANCE) : undefined);

/** Wrong on every 10th getBalance it answers. */
function tenPercentLiar(): NodeScript {
  let answered = 0;
  return (method) => (method === 'getBalance' ? answerAt(++answered % 10 === 0 ? BALANCE - 1 : BALANCE) : undefined);
}

/** `count` getBalance calls, 50 at a time; how many returned another value than the truth. */
async function wrongValues(pool: HttpTransportPool, count: number, options: Parameters<HttpTransportPool['request']>[2]): Promise<number> {
  let wrong = 0;
  for (let done = 0; done < count; done += 50) {
    const answers = (await Promise.all(Array.from({ length: 50 }, () => pool.request('getBalance', [ADDRESS], options)))) as { value: number }[];
    wrong += answers.filter((answer) => answer.value !== BALANCE).length;
  }
  return wrong;
}

const scoreOf = (pool: HttpTransportPool, endpointId: string) => pool.snapshot().endpoints.find((e) => e.endpointId === endpointId)?.reputation?.score;

describe('a 10 %-wrong-balance liar among two honest nodes', () => {
  it('without consensus, wrong balances reach the caller', async () => {
    const clock = createFakeClock();
    const { pool, liar } = await lyingFleet(clock, honest, tenPercentLiar(), 'solana');
    // One request per call: identical reads in flight would otherwise share one.
    const wrong = await wrongValues(pool, 1_000, { coalesce: false });
    // The liar takes about a third of the calls and lies on a tenth of them.
    expect(liar.count('getBalance')).toBeGreaterThan(200);
    expect(wrong).toBe(Math.floor(liar.count('getBalance') / 10));
    expect(wrong).toBeGreaterThan(20);
  });

  it('with operators: 2, 1 000 calls return 0 wrong values, the liar is struck and its score falls', async () => {
    const clock = createFakeClock();
    const { pool, liar, honest: [a, b] } = await lyingFleet(clock, honest, tenPercentLiar(), 'solana');
    const events: ConsensusEvent[] = [];
    pool.on('consensus', (event) => events.push(event));
    // One consensus per call (identical consensus reads in flight would share one).
    const wrong = await wrongValues(pool, 1_000, { consensus: { operators: 2 }, coalesce: false });
    expect(wrong).toBe(0);
    const consensus = pool.snapshot().consensus!;
    expect(consensus.calls).toBe(1_000);
    expect(consensus.failed).toBe(0);
    // Every lie was outvoted by a third operator and struck.
    expect(consensus.disagreed).toBeGreaterThan(0);
    expect(consensus.strikes).toBe(consensus.disagreed);
    expect(consensus.tieBreaks).toBe(consensus.disagreed);
    // Each disagreement said so: resolved, the liar the outlier, the honest two one answer class.
    expect(events).toHaveLength(consensus.disagreed);
    for (const event of events) {
      expect(event).toMatchObject({ method: 'getBalance', kind: 'read', outcome: 'resolved', outliers: ['liar'] });
      expect(event.answers).toHaveLength(3);
    }
    expect(scoreOf(pool, 'liar')).toBeLessThan(scoreOf(pool, 'honest-a')!);
    // Struck, it falls out of the better band: the honest operators take the consensus reads from then on.
    expect(scoreOf(pool, 'liar')).toBeLessThan(80);
    expect(liar.count('getBalance')).toBeLessThan(100);
    // Two requests per call, plus one per disagreement (the retries of nobody).
    const requests = liar.count('getBalance') + a.count('getBalance') + b.count('getBalance');
    expect(requests).toBe(2 * 1_000 + consensus.tieBreaks);
  });
});

describe('disagreement with no operator left', () => {
  it('fails CONSENSUS_FAILED naming which endpoint gave which answer class, no value and no URL', async () => {
    const clock = createFakeClock();
    const alwaysWrong: NodeScript = (method) => (method === 'getBalance' ? answerAt(7) : undefined);
    const { pool } = await lyingFleet(clock, honest, alwaysWrong, 'solana');
    const error = await rejection(pool.request('getBalance', [ADDRESS], { consensus: { operators: 3 } }));
    expect(error.code).toBe('CONSENSUS_FAILED');
    expect(error.context).toMatchObject({ operators: 3, reason: 'disagreement' });
    const classes = Object.fromEntries((error.context as { answers: { endpointId: string; answerClass: string }[] }).answers.map((a) => [a.endpointId, a.answerClass]));
    expect(classes['honest-a']).toBe(classes['honest-b']);
    expect(classes.liar).not.toBe(classes['honest-a']);
    const text = `${error.message} ${JSON.stringify(error.context)}`;
    expect(text).not.toContain('127.0.0.1');
    expect(text).not.toContain(String(BALANCE));
    // Nobody is struck when no answer won.
    expect(pool.snapshot().consensus).toMatchObject({ calls: 1, failed: 1, disagreed: 1, strikes: 0 });
  });
});
