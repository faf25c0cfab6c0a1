import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRotation } from '../../src/concentration/rotation.js';

/** One admission where every member admits: the first member offered takes the call. */
function admitFirst(rotation: ReturnType<typeof createRotation>): number {
  rotation.begin();
  const member = rotation.next();
  rotation.commit(member);
  return member;
}

describe('createRotation', () => {
  it('is exact round-robin from the start offset when every member admits', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 50 }), fc.integer({ min: -1000, max: 1000 }), fc.integer({ min: 1, max: 300 }), (size, start, runs) => {
        const rotation = createRotation(size, start);
        const first = ((start % size) + size) % size;
        const taken = Array.from({ length: runs }, () => admitFirst(rotation));
        expect(taken).toEqual(Array.from({ length: runs }, (_, i) => (first + i) % size));
      }),
    );
  });

  it('offers every member exactly once per walk, starting after the last admission', () => {
    const rotation = createRotation(4, 2);
    expect([...rotation.order()]).toEqual([2, 3, 0, 1]);
    rotation.commit(3);
    expect([...rotation.order()]).toEqual([0, 1, 2, 3]);
    rotation.begin();
    expect([rotation.next(), rotation.next(), rotation.next(), rotation.next(), rotation.next()]).toEqual([0, 1, 2, 3, -1]);
  });

  it('cycles through a given sequence instead of index order', () => {
    const rotation = createRotation(4, 1, [2, 0, 3, 1]);
    expect([admitFirst(rotation), admitFirst(rotation), admitFirst(rotation), admitFirst(rotation)]).toEqual([0, 3, 1, 2]);
    expect(() => createRotation(3, 0, [0, 0, 1])).toThrow(RangeError);
    expect(() => createRotation(3, 0, [0, 1])).toThrow(RangeError);
  });

  it('spreads the calls evenly over the members that admit when one cannot', () => {
    const rotation = createRotation(4, 0);
    const counts = [0, 0, 0, 0];
    let offeredToBlocked = 0;
    for (let i = 0; i < 300; i++) {
      rotation.begin();
      let member = rotation.next();
      while (member === 1) {
        offeredToBlocked++;
        member = rotation.next();
      }
      rotation.commit(member);
      counts[member]!++;
    }
    expect(counts).toEqual([100, 0, 100, 100]);
    // It is still offered the call once per round, so it gets traffic as soon as it recovers.
    expect(offeredToBlocked).toBe(100);
  });

  it('yields nothing before the first walk and for an empty tier, and rejects unknown members', () => {
    expect(createRotation(3, 0).next()).toBe(-1);
    const empty = createRotation(0, 5);
    empty.begin();
    expect(empty.next()).toBe(-1);
    expect(empty.order()).toEqual([]);
    expect(() => createRotation(3).commit(3)).toThrow(RangeError);
    expect(() => createRotation(3).commit(-1)).toThrow(RangeError);
  });
});
