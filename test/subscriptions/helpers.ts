import { afterEach } from 'vitest';
import type { HttpTransportPool } from '../../src/index.js';
import type { SubscriptionItem, Subscription } from '../../src/subscriptions/types.js';
import { createFixtureServer, type FakeClock, type FixtureServer } from '../../src/testing/index.js';

/** WebSocket fixture nodes (no slot ticker) and the pools a test makes on them, closed after each test. */
export function trackedWebSocketNodes(): { readonly pools: HttpTransportPool[]; node(clock: FakeClock): Promise<FixtureServer> } {
  const servers: FixtureServer[] = [];
  const pools: HttpTransportPool[] = [];
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((p) => p.close()));
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  return {
    pools,
    node: async (clock) => {
      const server = await createFixtureServer({ fixtures: [], clock, websocket: { slotIntervalMs: 0 } });
      servers.push(server);
      return server;
    },
  };
}

/** Reads items until `stop` says so (inclusive), at most `limit` items, within `timeoutMs` of real time. */
export async function readUntil<T = unknown>(
  sub: Subscription<T>,
  stop: (item: SubscriptionItem<T>, all: readonly SubscriptionItem<T>[]) => boolean,
  { limit = 10_000, timeoutMs = 10_000 } = {},
): Promise<SubscriptionItem<T>[]> {
  const items: SubscriptionItem<T>[] = [];
  const deadline = performance.now() + timeoutMs;
  while (items.length < limit) {
    const left = deadline - performance.now();
    if (left <= 0) throw new Error(`readUntil timed out after ${items.length} items: ${describe(items.slice(-5))}`);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const next = await Promise.race([
      sub.next(),
      new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), left);
      }),
    ]);
    clearTimeout(timer);
    if (next === 'timeout') throw new Error(`readUntil timed out after ${items.length} items: ${describe(items.slice(-5))}`);
    if (next.done) return items;
    items.push(next.value);
    if (stop(next.value, items)) return items;
  }
  return items;
}

export function describe(items: readonly SubscriptionItem<unknown>[]): string {
  return items
    .map((item) => {
      switch (item.kind) {
        case 'notification':
          return `n(${item.endpointId}:${JSON.stringify(item.value, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))})`;
        case 'gap':
          return `gap(${item.from}-${item.to})`;
        case 'rebind':
          return `rebind(${item.fromEndpointId}->${item.endpointId}:${item.reason})`;
        case 'overflow':
          return `overflow(${item.dropped})`;
        case 'resync':
          return `resync(${item.values.length})`;
      }
    })
    .join(' ');
}

/** Slots of the notification items. */
export const slotsOf = (items: readonly SubscriptionItem[]) =>
  items.flatMap((item) => (item.kind === 'notification' ? [Number((item.value as { slot: number }).slot)] : []));

export { until } from '../helpers/until.js';
