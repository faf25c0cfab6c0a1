import { createSeededRandom } from '../../src/clock.js';
import type { EndpointConfig, HttpTransportPoolOptions } from '../../src/config/types.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import type { HttpRequestPermit } from '../../src/admission/permit.js';
import { createFakeClock, type FakeClock } from '../../src/testing/fake-clock.js';
import { createScriptedExecutor } from '../helpers/scripted-executor.js';

export type ScriptedExecutor = ReturnType<typeof createScriptedExecutor>;

export interface TestPool {
  readonly pool: HttpTransportPool;
  readonly clock: FakeClock;
  readonly executor: ScriptedExecutor;
}

/** `https://<name>.example.com/`: one operator for every endpoint, so the concentration cap never reshapes rotation. */
export const url = (name: string): string => `https://${name}.example.com/`;

/** An endpoint with an explicit id on its own host under example.com. */
export const endpoint = (id: string, settings: Omit<EndpointConfig, 'url' | 'id'> = {}): EndpointConfig => ({ id, url: url(id), ...settings });

/** A pool on a fake clock, a seeded random and an in-memory executor: nothing touches the network or real time. */
export function createTestPool(
  endpoints: readonly EndpointConfig[],
  options: Omit<HttpTransportPoolOptions, 'endpoints' | 'clock' | 'random' | 'executor'> & { readonly seed?: number } = {},
): TestPool {
  const { seed = 1, ...rest } = options;
  const clock = createFakeClock();
  const executor = createScriptedExecutor();
  const pool = new HttpTransportPool({ ...rest, endpoints, clock, random: createSeededRandom(seed), executor });
  return { pool, clock, executor };
}

export interface Tracked<T> {
  readonly settled: boolean;
  readonly value: T | undefined;
  readonly error: unknown;
  /** Fake-clock instant at which the promise settled. */
  readonly atMs: number | undefined;
}

/** Observes a promise without awaiting it, recording when (on the fake clock) and how it settled. */
export function track<T>(promise: Promise<T>, clock: FakeClock): Tracked<T> {
  const state: { settled: boolean; value: T | undefined; error: unknown; atMs: number | undefined } = {
    settled: false,
    value: undefined,
    error: undefined,
    atMs: undefined,
  };
  promise.then(
    (value) => {
      state.settled = true;
      state.value = value;
      state.atMs = clock.now();
    },
    (error: unknown) => {
      state.settled = true;
      state.error = error;
      state.atMs = clock.now();
    },
  );
  return state;
}

/** The role snapshot of one endpoint for one kind. */
export function roleOf(pool: HttpTransportPool, endpointId: string, kind = 'read') {
  const role = pool.snapshot().roles.find((r) => r.endpointId === endpointId && r.kind === kind);
  if (!role) throw new Error(`no role ${endpointId}/${kind}`);
  return role;
}

/** Acquires `count` permits one after another, failing fast if any of them would have to wait. */
export async function acquireNow(t: TestPool, count: number, kind = 'read'): Promise<HttpRequestPermit[]> {
  const permits: HttpRequestPermit[] = [];
  for (let i = 0; i < count; i++) {
    const pending = track(t.pool.acquireForRequestKind(kind, { timeoutMs: 100 }), t.clock);
    await t.clock.flush();
    if (!pending.settled) throw new Error(`acquire #${i + 1} of '${kind}' did not resolve at once`);
    if (pending.error !== undefined) throw pending.error;
    permits.push(pending.value as HttpRequestPermit);
  }
  return permits;
}

export const ids = (permits: readonly HttpRequestPermit[]): string[] => permits.map((p) => p.endpointId);
