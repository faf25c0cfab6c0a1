import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IndexedHeap } from '../../src/concentration/indexed-heap.js';

type Op = { kind: 'push' | 'remove' | 'update'; item: number; key: number };

const opsArb = fc.array(
  fc.record({ kind: fc.constantFrom<Op['kind']>('push', 'remove', 'update'), item: fc.nat(15), key: fc.integer({ min: -5, max: 5 }) }),
  { maxLength: 200 },
);

describe('IndexedHeap', () => {
  it('walks its items in key order, ties by rank, after any pushes, removals and key changes', () => {
    fc.assert(
      fc.property(opsArb, fc.nat(15), (ops, start) => {
        const keys = new Float64Array(16);
        const ranks = Int32Array.from({ length: 16 }, (_, i) => (i + start) % 16);
        const heap = new IndexedHeap(16, keys, ranks);
        const model = new Set<number>();
        for (const { kind, item, key } of ops) {
          if (kind === 'push' && !model.has(item)) {
            keys[item] = key;
            heap.push(item);
            model.add(item);
          } else if (kind === 'remove' && model.has(item)) {
            heap.remove(item);
            model.delete(item);
          } else if (kind === 'update' && model.has(item)) {
            keys[item] = key;
            heap.update(item);
          }
        }
        const expected = [...model].sort((a, b) => keys[a]! - keys[b]! || ranks[a]! - ranks[b]!);
        const walked: number[] = [];
        heap.startWalk();
        for (let item = heap.nextInWalk(); item !== -1; item = heap.nextInWalk()) walked.push(item);
        expect(walked).toEqual(expected);
        expect(heap.size).toBe(model.size);
        expect(heap.peek()).toBe(expected[0] ?? -1);
        for (let item = 0; item < 16; item++) expect(heap.has(item)).toBe(model.has(item));
      }),
    );
  });
});
