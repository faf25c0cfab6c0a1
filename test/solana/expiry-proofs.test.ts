import { afterEach, describe, expect, it } from 'vitest';
import { createSolanaClient, waitForSignature, type WaitForSignatureReturnType } from '../../src/solana/index.js';
import { createFakeClock, type FakeClock } from '../../src/testing/index.js';
import { closeAllServers, loadFixture } from '../helpers/loopback.js';
import { drive, lyingFleet, type NodeScript } from '../helpers/lying-nodes.js';
import { closePools } from '../helpers/pools.js';

/**
 * `expired` is a proof (issue 24 §1): with two honest nodes and one liar on loopback, no lie
 * of one node makes a transaction that lands (or landed) `expired`, and a real expiry is
 * still proven by the two honest operators.
 */

const WIRE = loadFixture('solana-sendTransaction').request.params[0] as string;
const SIGNATURE = loadFixture('solana-sendTransaction').expect?.['signature'] as string;
/** A signature no node ever saw. */
const NEVER_SENT = '5'.repeat(87);

/** The chain the honest nodes see: 2.5 slots/s from slot 300 000 000; block height 20 000 000 below the slot; finalized 32 slots behind. */
const slotAt = (nowMs: number) => 300_000_000 + Math.floor(nowMs / 400);
const finalizedSlotAt = (nowMs: number) => slotAt(nowMs) - 32;
const blockHeightOf = (slot: number) => slot - 20_000_000;

const status = (confirmationStatus: 'confirmed' | 'finalized') => ({ slot: 300_000_001, confirmations: confirmationStatus === 'finalized' ? null : 1, err: null, confirmationStatus });

interface Landing {
  /** When SIGNATURE lands (fake-clock ms); Infinity: never. */
  landsAtMs: number;
  /** Honest nodes forget it from the status cache at this time (only a history search finds it then). */
  cachedUntilMs: number;
}

function honestNode(landing: Landing): NodeScript {
  return (method, params, nowMs) => {
    const landed = params[0] instanceof Array && params[0][0] === SIGNATURE && nowMs >= landing.landsAtMs;
    switch (method) {
      case 'sendTransaction':
        return SIGNATURE;
      case 'getSignatureStatuses': {
        const history = (params[1] as { searchTransactionHistory?: boolean } | undefined)?.searchTransactionHistory === true;
        const found = landed && (history || nowMs < landing.cachedUntilMs);
        return { context: { slot: slotAt(nowMs) }, value: [found ? status('finalized') : null] };
      }
      case 'getEpochInfo': {
        const slot = finalizedSlotAt(nowMs);
        return { absoluteSlot: slot, blockHeight: blockHeightOf(slot), epoch: 700, slotIndex: 0, slotsInEpoch: 432_000 };
      }
      case 'isBlockhashValid':
        // Valid for the whole test: the blockhash is fresh.
        return { context: { slot: finalizedSlotAt(nowMs) }, value: true };
      case 'getSlot':
        return slotAt(nowMs);
      case 'getHealth':
        return 'ok';
      default:
        return undefined;
    }
  };
}

/** The honest node, except for `lie`. */
const liarWith = (honest: NodeScript, lie: NodeScript): NodeScript => (method, params, nowMs) => lie(method, params, nowMs) ?? honest(method, params, nowMs);

async function runs(clock: FakeClock, count: number, run: () => Promise<WaitForSignatureReturnType>): Promise<WaitForSignatureReturnType['status'][]> {
  const outcomes: WaitForSignatureReturnType['status'][] = [];
  for (let i = 0; i < count; i++) outcomes.push((await drive(clock, run())).status);
  return outcomes;
}

afterEach(async () => {
  await closePools();
  await closeAllServers();
});

describe('Solana expiry is proven by two operators, never by one node', () => {
  it('a node reporting a finalized block height 10^6 too high: 0 of 8 expired, all 8 land 1.5 s later', async () => {
    const clock = createFakeClock();
    const landing: Landing = { landsAtMs: 0, cachedUntilMs: Number.POSITIVE_INFINITY };
    const honest = honestNode(landing);
    const liar = liarWith(honest, (method, _, nowMs) => {
      if (method !== 'getEpochInfo') return undefined;
      const slot = finalizedSlotAt(nowMs);
      return { absoluteSlot: slot, blockHeight: blockHeightOf(slot) + 1_000_000, epoch: 700, slotIndex: 0, slotsInEpoch: 432_000 };
    });
    const { pool, liar: liarServer } = await lyingFleet(clock, honest, liar, 'solana');
    const sol = createSolanaClient(pool, { clock });
    const outcomes = await runs(clock, 8, () => {
      landing.landsAtMs = clock.now() + 1_500;
      // Valid for 150 more blocks by the honest chain: the liar's height is far past it.
      return sol.sendAndConfirm(WIRE, { lastValidBlockHeight: blockHeightOf(finalizedSlotAt(clock.now())) + 150, timeoutMs: 20_000 });
    });
    expect(outcomes).toEqual(Array(8).fill('confirmed'));
    expect(liarServer.count('getEpochInfo')).toBeGreaterThan(0);
  });

  it('a node answering isBlockhashValid false at a slot above the honest true: 0 of 8 expired, all 8 land', async () => {
    const clock = createFakeClock();
    const landing: Landing = { landsAtMs: 0, cachedUntilMs: Number.POSITIVE_INFINITY };
    const honest = honestNode(landing);
    const liar = liarWith(honest, (method, _, nowMs) => (method === 'isBlockhashValid' ? { context: { slot: finalizedSlotAt(nowMs) + 5 }, value: false } : undefined));
    const { pool, liar: liarServer } = await lyingFleet(clock, honest, liar, 'solana');
    const sol = createSolanaClient(pool, { clock });
    const outcomes = await runs(clock, 8, () => {
      landing.landsAtMs = clock.now() + 1_500;
      return sol.sendAndConfirm(WIRE, { timeoutMs: 20_000 });
    });
    expect(outcomes).toEqual(Array(8).fill('confirmed'));
    expect(liarServer.count('isBlockhashValid')).toBeGreaterThan(0);
  });

  it('a node with no history answering null for a transaction that landed 10 s ago: 0 of 12 expired, all 12 confirmed by waitForSignature', async () => {
    const clock = createFakeClock();
    const landing: Landing = { landsAtMs: 0, cachedUntilMs: 0 };
    const honest = honestNode(landing);
    const liar = liarWith(honest, (method, _, nowMs) => (method === 'getSignatureStatuses' ? { context: { slot: slotAt(nowMs) }, value: [null] } : undefined));
    const { pool, liar: liarServer } = await lyingFleet(clock, honest, liar, 'solana');
    const outcomes = await runs(clock, 12, () => {
      // Landed 10 s ago, out of the status cache since; its blockhash expired 5 s ago.
      landing.landsAtMs = clock.now() - 10_000;
      const lastValidBlockHeight = blockHeightOf(finalizedSlotAt(clock.now() - 5_000));
      return waitForSignature(pool, SIGNATURE, { clock, lastValidBlockHeight, commitment: 'confirmed', timeoutMs: 20_000 });
    });
    expect(outcomes).toEqual(Array(12).fill('confirmed'));
    expect(liarServer.count('getSignatureStatuses')).toBeGreaterThan(0);
  });

  it('a transaction that never landed is still proven expired by the two honest operators, liar or not', async () => {
    const clock = createFakeClock();
    const landing: Landing = { landsAtMs: Number.POSITIVE_INFINITY, cachedUntilMs: 0 };
    const honest = honestNode(landing);
    const liar = liarWith(honest, (method, _, nowMs) => (method === 'getSignatureStatuses' ? { context: { slot: slotAt(nowMs) }, value: [null] } : undefined));
    const { pool } = await lyingFleet(clock, honest, liar, 'solana');
    const lastValidBlockHeight = blockHeightOf(finalizedSlotAt(clock.now())) + 10;
    const outcome = await drive(clock, waitForSignature(pool, NEVER_SENT, { clock, lastValidBlockHeight, timeoutMs: 60_000 }));
    expect(outcome).toMatchObject({ status: 'expired', reason: 'block-height-exceeded' });
    // The proof is the lower of two finalized heights, both past lastValidBlockHeight.
    expect((outcome as { blockHeight: bigint }).blockHeight).toBeGreaterThan(BigInt(lastValidBlockHeight));
  });

  it('a node answering garbage is passed over: the two honest operators still prove a real expiry', async () => {
    const clock = createFakeClock();
    const landing: Landing = { landsAtMs: Number.POSITIVE_INFINITY, cachedUntilMs: 0 };
    const honest = honestNode(landing);
    const liar = liarWith(honest, (method) => (method === 'getEpochInfo' ? { blockHeight: 'high' } : undefined));
    const { pool, liar: liarServer } = await lyingFleet(clock, honest, liar, 'solana');
    const lastValidBlockHeight = blockHeightOf(finalizedSlotAt(clock.now())) + 10;
    const outcome = await drive(clock, waitForSignature(pool, NEVER_SENT, { clock, lastValidBlockHeight, timeoutMs: 60_000 }));
    expect(outcome).toMatchObject({ status: 'expired', reason: 'block-height-exceeded' });
    expect(liarServer.count('getEpochInfo')).toBeGreaterThan(0);
  });

  it('a pool of one operator proves no expiry: unknown at the deadline, never expired', async () => {
    const clock = createFakeClock();
    const landing: Landing = { landsAtMs: Number.POSITIVE_INFINITY, cachedUntilMs: 0 };
    const honest = honestNode(landing);
    const { pool } = await lyingFleet(clock, honest, honest, 'solana');
    const single = { request: pool.request.bind(pool) };
    const outcome = await drive(clock, waitForSignature(single, NEVER_SENT, { clock, lastValidBlockHeight: 1, timeoutMs: 5_000 }));
    expect(outcome).toEqual({ status: 'unknown', signature: NEVER_SENT, lastStatus: null });
  });
});
