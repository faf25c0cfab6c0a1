import { base58 } from '@scure/base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeBase58, encodeBase58, isBase58OfLength } from '../../src/jsonrpc/base58.js';

/** The request path's own base58 decoder gives what `@scure/base` gives, for valid and invalid text. */
const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const scure = (text: string) => {
  try {
    return base58.decode(text);
  } catch {
    return undefined;
  }
};

describe('decodeBase58', () => {
  it('decodes what @scure/base encodes, leading zero bytes included', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), fc.nat({ max: 4 }), (bytes, zeros) => {
        const input = new Uint8Array([...new Array<number>(zeros).fill(0), ...bytes]);
        expect(decodeBase58(base58.encode(input))).toEqual(input);
      }),
      { seed: 58, numRuns: 500 },
    );
  });

  it('agrees with @scure/base on any text, outside the alphabet too (0, O, I, l, spaces, unicode)', () => {
    const chars = fc.constantFrom(...ALPHABET, '0', 'O', 'I', 'l', ' ', '+', 'é');
    fc.assert(
      fc.property(fc.array(chars, { maxLength: 60 }).map((a) => a.join('')), (text) => {
        expect(decodeBase58(text)).toEqual(scure(text));
      }),
      { seed: 59, numRuns: 1000 },
    );
  });

  it('checks lengths as before: a 32-byte address, a 64-byte signature, nothing else', () => {
    expect(isBase58OfLength('83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaoBRRS3w5a', 32)).toBe(true);
    expect(isBase58OfLength('11111111111111111111111111111111', 32)).toBe(true);
    expect(isBase58OfLength('83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaoBRRS3w5a', 64)).toBe(false);
    expect(isBase58OfLength('0OIl', 3)).toBe(false);
    expect(isBase58OfLength('', 0)).toBe(false);
    expect(isBase58OfLength('1'.repeat(1_000_000), 32)).toBe(false);
  });
});

describe('encodeBase58', () => {
  it('encodes as @scure/base does, leading zero bytes included', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), fc.nat({ max: 4 }), (bytes, zeros) => {
        const input = new Uint8Array([...new Array<number>(zeros).fill(0), ...bytes]);
        expect(encodeBase58(input)).toBe(base58.encode(input));
      }),
      { seed: 60, numRuns: 500 },
    );
  });
});
