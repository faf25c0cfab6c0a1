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
