import { describe, expect, it } from 'vitest';
import { selectKth } from '../../src/balance/select-kth.js';
import { createSeededRandom } from '../../src/clock.js';

describe('selectKth', () => {
  it('gives the value a full sort puts at index k, for random, duplicated, sorted and reversed input', () => {
    const random = createSeededRandom(26);
    for (let round = 0; round < 200; round++) {
      const length = 1 + Math.floor(random() * 600);
      const values = new Float64Array(length);
      const shape = round % 4;
      for (let i = 0; i < length; i++) {
        values[i] = shape === 0 ? random() * 100 : shape === 1 ? Math.floor(random() * 4) : shape === 2 ? i : length - i;
      }
      const sorted = values.slice().sort();
      const k = Math.floor(random() * length);
      expect(selectKth(values.slice(), length, k)).toBe(sorted[k]);
    }
  });

  it('looks only at the first `length` values', () => {
    const values = Float64Array.from([5, 1, 3, -100, -200]);
    expect(selectKth(values, 3, 0)).toBe(1);
    expect(selectKth(Float64Array.from([5, 1, 3, -100]), 3, 2)).toBe(5);
  });
});
