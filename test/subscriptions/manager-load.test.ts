import { describe, expect, it, vi } from 'vitest';
import { HttpTransportPool } from '../../src/index.js';
import { TransportError } from '../../src/errors/transport-error.js';

/** How many loads of the subscription manager fail, as a chunk fetch fails on a flaky network. */
const loads = vi.hoisted(() => ({ failing: 1, attempted: 0 }));
vi.mock('../../src/subscriptions/manager.js', async (importOriginal) => {
  loads.attempted += 1;
  if (loads.failing-- > 0) throw new TypeError('Failed to fetch dynamically imported module');
  return importOriginal();
});

describe('the subscription manager, loaded on the first subscribe()', () => {
  it('is loaded again by the next subscribe() when a load failed, and the failed call says so with a TransportError', async () => {
    // No endpoint has a WebSocket URL: once loaded, the manager refuses with no-ws-endpoint, sending nothing.
    const pool = new HttpTransportPool({ endpoints: [{ url: 'http://127.0.0.1:1' }] });
    try {
      const first = await pool.subscribe('slotSubscribe', []).then(() => undefined, (e: unknown) => e);
      expect(first).toBeInstanceOf(TransportError);
      expect((first as TransportError).code).toBe('SUBSCRIPTION_FAILED');
      expect((first as TransportError<'SUBSCRIPTION_FAILED'>).context).toMatchObject({ method: 'slotSubscribe', reason: 'load-failed' });
      const second = await pool.subscribe('slotSubscribe', []).then(() => undefined, (e: unknown) => e);
      expect((second as TransportError<'SUBSCRIPTION_FAILED'>).context).toMatchObject({ reason: 'no-ws-endpoint' });
      expect(loads.attempted).toBe(2);
    } finally {
      await pool.close();
    }
  });
});
