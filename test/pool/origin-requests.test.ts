import { afterEach, describe, expect, it } from 'vitest';
import { trustedHeadOf } from '../../src/health/trusted-head.js';
import { createFakeClock } from '../../src/testing/index.js';
import { closeAllServers, sendBody, startRpcServer, type RpcServer } from '../helpers/loopback.js';
import { closePools, createPool, rejection } from '../helpers/pools.js';

/**
 * The pool's side of proofs: `requestWithOrigin` says which endpoint and operator answered
 * and never asks an excluded operator; `trustedHead` is the head two operators vouch for.
 */

/** A node answering eth_blockNumber with `head` (or a 503 when `head` is undefined). */
async function blockNode(head: () => number | undefined): Promise<RpcServer> {
  return startRpcServer((request, { res }) => {
    const value = head();
    if (value === undefined) sendBody(res, 'down', 503);
    else sendBody(res, JSON.stringify({ jsonrpc: '2.0', id: request.id, result: `0x${value.toString(16)}` }));
  });
}

afterEach(async () => {
  await closePools();
  await closeAllServers();
});

describe('requestWithOrigin and trustedHead', () => {
  it('names the endpoint and operator that answered, asks no excluded operator, and fails over among the others', async () => {
    let aUp = true;
    const a = await blockNode(() => (aUp ? 100 : undefined));
    const b = await blockNode(() => 101);
    const c = await blockNode(() => 102);
    const pool = createPool({
      endpoints: [
        { id: 'a', url: a.url, operator: 'op-a' },
        { id: 'b', url: b.url, operator: 'op-b' },
        { id: 'c', url: c.url, operator: 'op-c' },
      ],
      chain: 'evm',
      clock: createFakeClock(),
      retry: { maxRetries: 0 },
    });
    await expect(pool.requestWithOrigin('eth_blockNumber', [])).resolves.toEqual({ value: '0x64', endpointId: 'a', operator: 'op-a' });
    await expect(pool.requestWithOrigin('eth_blockNumber', [], { excludeOperators: ['op-a'] })).resolves.toMatchObject({ endpointId: 'b', operator: 'op-b' });
    const before = a.count();
    aUp = false;
    // op-a's endpoint fails: the next allowed operator answers.
    await expect(pool.requestWithOrigin('eth_blockNumber', [], { excludeOperators: ['op-b'] })).resolves.toMatchObject({ endpointId: 'c', operator: 'op-c' });
    expect(a.count()).toBeGreaterThan(before);
    const error = await rejection(pool.requestWithOrigin('eth_blockNumber', [], { excludeOperators: ['op-a', 'op-b', 'op-c'] }));
    expect(error.code).toBe('NO_ENDPOINT');
  });

  it('trusts no head until two operators reported one, then the highest both reached (never one node 10^6 ahead)', async () => {
    const liar = await blockNode(() => 1_000_100);
    const honest = await blockNode(() => 100);
    const other = await blockNode(() => 99);
    const pool = createPool({
      endpoints: [
        { id: 'liar', url: liar.url, operator: 'op-l' },
        { id: 'honest', url: honest.url, operator: 'op-h' },
        { id: 'other', url: other.url, operator: 'op-o' },
      ],
      chain: 'evm',
      clock: createFakeClock(),
    });
    await pool.request('eth_blockNumber', [], { endpoint: 'liar' });
    expect(pool.trustedHead('block')).toBeUndefined();
    await pool.request('eth_blockNumber', [], { endpoint: 'other' });
    expect(pool.trustedHead('block')).toBe(99n);
    await pool.request('eth_blockNumber', [], { endpoint: 'honest' });
    expect(pool.trustedHead('block')).toBe(100n);
    expect(pool.trustedHead('slot')).toBeUndefined();
  });

  it('the trusted head is the second-highest operator head: one operator with many endpoints vouches once', () => {
    expect(trustedHeadOf([])).toBeUndefined();
    expect(trustedHeadOf([{ operator: 'x', value: 5n }, { operator: 'x', value: 9n }])).toBeUndefined();
    expect(trustedHeadOf([{ operator: 'x', value: 5n }, { operator: 'x', value: 9n }, { operator: 'y', value: 7n }])).toBe(7n);
    expect(trustedHeadOf([{ operator: 'x', value: 10n ** 6n }, { operator: 'y', value: 7n }, { operator: 'z', value: 8n }])).toBe(8n);
  });
});
