import { afterEach, describe, expect, it } from 'vitest';
import { createSeededRandom, HttpTransportPool, type SocketFactory } from '../../src/index.js';
import { readUntil, slotsOf } from './helpers.js';

/** In-memory nodes through `subscriptions.socketFactory`: frames delivered exactly as a test scripts them. */
const pools: HttpTransportPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

/** A node that answers `slotSubscribe` and, in the same tick (one TCP chunk), sends three notifications. */
function eagerNode(): SocketFactory {
  return (_url, _headers, handlers) => {
    queueMicrotask(() => handlers.onOpen());
    return {
      send(text) {
        const call = JSON.parse(text) as { id: number; method: string };
        queueMicrotask(() => {
          handlers.onMessage(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: call.method.endsWith('Unsubscribe') ? true : 7 }));
          if (call.method !== 'slotSubscribe') return;
          for (const slot of [1, 2, 3]) handlers.onMessage(JSON.stringify({ jsonrpc: '2.0', method: 'slotNotification', params: { subscription: 7, result: { slot } } }));
        });
      },
      close() {
        queueMicrotask(() => handlers.onClose());
      },
    };
  };
}

describe('frames right behind the subscribe answer', () => {
  it('notifications in the same chunk as the answer are delivered, not dropped as unknown', async () => {
    const pool = new HttpTransportPool({
      endpoints: [{ id: 'a', url: 'http://127.0.0.1:1', wsUrl: 'ws://127.0.0.1:1' }],
      random: createSeededRandom(1),
      subscriptions: { socketFactory: eagerNode(), pingIntervalMs: 0 },
    });
    pools.push(pool);
    const sub = await pool.subscribe('slotSubscribe', []);
    const items = await readUntil(sub, (_i, all) => all.length === 3);
    expect(slotsOf(items)).toEqual([1, 2, 3]);
    expect(pool.snapshot().subscriptions[0]!.unknownNotifications).toBe(0);
  });
});

describe('the WHATWG WebSocket path (browsers)', () => {
  it('webSocketFactory subscribes and receives through onopen/onmessage, sends no pings, and still rebinds on silence', async () => {
    const { WebSocket } = await import('ws');
    const { createFixtureServer } = await import('../../src/testing/index.js');
    const { webSocketFactory } = await import('../../src/index.js');
    const { createFakeClock } = await import('../../src/testing/index.js');
    const { drive } = await import('./drive.js');
    const clock = createFakeClock();
    const a = await createFixtureServer({ fixtures: [], websocket: { slotIntervalMs: 0 } });
    const b = await createFixtureServer({ fixtures: [], websocket: { slotIntervalMs: 0 } });
    try {
      const pool = new HttpTransportPool({
        endpoints: [
          { id: 'a', url: a.url, wsUrl: a.wsUrl!, tier: 0 },
          { id: 'b', url: b.url, wsUrl: b.wsUrl!, tier: 1 },
        ],
        clock,
        random: createSeededRandom(1),
        // ws's class implements the WHATWG on* handlers: it stands in for a browser's WebSocket here.
        subscriptions: { socketFactory: webSocketFactory(WebSocket as unknown as typeof globalThis.WebSocket), pingIntervalMs: 50, pongTimeoutMs: 50, minSilenceMs: 300, silenceFactor: 1 },
      });
      pools.push(pool);
      const sub = await pool.subscribe('slotSubscribe', []);
      a.ws!.tickSlot();
      expect(slotsOf(await readUntil(sub, (_i, all) => all.length === 1))).toEqual([1001]);
      // No ping frames from this factory, so no pong timeout either (50 ms would have fired): only silence moves it.
      const silentFrom = clock.now();
      const items = await drive(clock, sub, (all) => all.some((i) => i.kind === 'rebind'), { stepMs: 50, maxSteps: 20 });
      expect(items.at(-1)).toMatchObject({ kind: 'rebind', reason: 'silent', endpointId: 'b' });
      expect(items.at(-1)!.atMs - silentFrom).toBeGreaterThanOrEqual(300);
      expect(a.ws!.pings).toBe(0);
    } finally {
      await Promise.all(pools.splice(0).map((p) => p.close()));
      await Promise.all([a.close(), b.close()]);
    }
  });
});
