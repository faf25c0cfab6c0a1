/**
 * Solana sessions and empty answers (retryEmpty): a signature status the session saw, answered
 * `null` by a node that lost it, is asked of another operator at once — at no cost to that
 * node. Scripted nodes on a fake clock: both at slot 100, node b never has the status.
 */
import { describe, expect, it } from 'vitest';
import type { ExecuteRequest, RawOutcome } from '../../src/http/executor.js';
import { ok } from '../helpers/scripted-executor.js';
import { createTestPool, type TestPool } from '../pool/pool-fixtures.js';

const SIGNATURE = '5'.repeat(88);

function node(hasStatus: boolean) {
  return (_request: ExecuteRequest, id: number): RawOutcome =>
    ok({ context: { slot: 100 }, value: [hasStatus ? { slot: 98, confirmations: null, err: null, confirmationStatus: 'finalized' } : null] }, id);
}

function pool(): TestPool {
  const t = createTestPool(
    [
      { id: 'a', url: 'https://a.alpha-rpc.com/' },
      { id: 'b', url: 'https://b.beta-node.net/' },
    ],
    { chain: 'solana', balance: false, hedge: false, concentration: { maxOperatorShare: 0 } },
  );
  t.executor.script('a', node(true));
  t.executor.script('b', node(false));
  return t;
}

const statusOf = (value: unknown) => (value as { value: unknown[] }).value[0];

describe('a Solana session: a signature status it saw is never reported missing by a node that lost it', () => {
  it('asks the other operator at once; the plain pool reports it missing', async () => {
    const t = pool();
    const session = t.pool.session();
    let status: unknown = null;
    for (let i = 0; i < 3 && status === null; i++) status = statusOf(await session.request('getSignatureStatuses', [[SIGNATURE]]));
    expect(status).not.toBeNull();
    const failuresBefore = t.pool.snapshot().roles.find((r) => r.endpointId === 'b')!.failures;
    const from = t.executor.received.length;
    const seen = [];
    for (let i = 0; i < 6; i++) seen.push(statusOf(await session.request('getSignatureStatuses', [[SIGNATURE]])));
    expect(seen.every((s) => s !== null)).toBe(true);
    // Node b was asked in its turn (round-robin) and answered null each time; no failure counted against it.
    expect(t.executor.received.slice(from).filter((r) => r.endpointId === 'b').length).toBeGreaterThanOrEqual(2);
    expect(t.pool.snapshot().roles.find((r) => r.endpointId === 'b')!.failures).toBe(failuresBefore);

    let missing = 0;
    for (let i = 0; i < 6; i++) if (statusOf(await t.pool.request('getSignatureStatuses', [[SIGNATURE]])) === null) missing++;
    expect(missing).toBe(3);
    await t.pool.close();
  });
});
