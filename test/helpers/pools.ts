import type { HttpTransportPoolOptions } from '../../src/config/types.js';
import { TransportError } from '../../src/errors/transport-error.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';

/** Pools created by the tests, closed together by {@link closePools} (call it in `afterEach` / `afterAll`). */
const pools: HttpTransportPool[] = [];

/** A pool closed by {@link closePools}. */
export function createPool(options: HttpTransportPoolOptions): HttpTransportPool {
  const pool = new HttpTransportPool(options);
  pools.push(pool);
  return pool;
}

export async function closePools(): Promise<void> {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
}

/** `primary` on tier 0 and `peer` on tier 1: a call's first attempt always goes to `primary`. */
export function twoTierPool(primaryUrl: string, peerUrl: string, extra: Partial<HttpTransportPoolOptions> = {}): HttpTransportPool {
  return createPool({ endpoints: [{ id: 'primary', url: primaryUrl, tier: 0 }, { id: 'peer', url: peerUrl, tier: 1 }], ...extra });
}

/** The `TransportError` a pool call rejects with; anything else it settles with (a resolve, another error) fails the test. */
export async function rejection(promise: Promise<unknown>): Promise<TransportError> {
  const error: unknown = await promise.then(
    () => new Error('expected the call to fail'),
    (e: unknown) => e,
  );
  if (!(error instanceof TransportError)) throw error;
  return error;
}
