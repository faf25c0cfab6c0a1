import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonExact, stringifyJson } from '../../src/jsonrpc/exact-json.js';

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** True when every number in `value` survives a JS `number` exactly. */
function isSafeJson(value: unknown): boolean {
  if (typeof value === 'number') return !Number.isInteger(value) || Number.isSafeInteger(value);
  if (Array.isArray(value)) return value.every(isSafeJson);
  if (typeof value === 'object' && value !== null) return Object.values(value).every(isSafeJson);
  return true;
}

describe('parseJsonExact', () => {
  it('keeps u64 max exact as a bigint', () => {
    const parsed = parseJsonExact('{"value":18446744073709551615}') as { value: unknown };
    expect(parsed.value).toBe(18446744073709551615n);
  });

  it('keeps 2^53 + 1 exact (a number would round it to 2^53)', () => {
    expect(parseJsonExact('9007199254740993')).toBe(9007199254740993n);
    expect(parseJsonExact('[9007199254740992]')).toEqual([9007199254740992n]);
  });

  it('keeps negative big integers exact', () => {
    expect(parseJsonExact('{"a":[-9007199254740993,-170141183460469231731687303715884105728]}')).toEqual({
      a: [-9007199254740993n, -170141183460469231731687303715884105728n],
    });
  });

  it('returns the largest safe integers as numbers', () => {
    expect(parseJsonExact('[9007199254740991,-9007199254740991,1234567890123456]')).toEqual([
      9007199254740991, -9007199254740991, 1234567890123456,
    ]);
  });

  it('leaves floats, exponents and -0 as JSON.parse does, even next to a big integer', () => {
    const text = '[18446744073709551615,1.5,-0,1e30,12345678901234567.5,9007199254740993.0,2.5e-7]';
    const parsed = parseJsonExact(text) as unknown[];
    expect(parsed[0]).toBe(18446744073709551615n);
    expect(parsed.slice(1)).toEqual((JSON.parse(text) as unknown[]).slice(1));
    expect(Object.is(parsed[2], -0)).toBe(true);
  });

  it('leaves long digit runs inside strings untouched', () => {
    const text = '{"sig":"12345678901234567890123","n":5,"hex":"0x21e19e0c9bab2400000"}';
    expect(parseJsonExact(text)).toEqual({ sig: '12345678901234567890123', n: 5, hex: '0x21e19e0c9bab2400000' });
  });

  it('keeps the last of duplicate keys on both paths, like JSON.parse', () => {
    expect(parseJsonExact('{"a":1,"a":2}')).toEqual({ a: 2 });
    expect(parseJsonExact('{"a":1,"a":18446744073709551615}')).toEqual({ a: 18446744073709551615n });
  });

  it('stores a "__proto__" key as data, not as a prototype', () => {
    const parsed = parseJsonExact('{"__proto__":{"polluted":1},"n":12345678901234567890}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.hasOwn(parsed, '__proto__')).toBe(true);
  });

  it.each([
    [''],
    ['{"a":1'],
    ['{"a":12345678901234567'],
    ['[1,]'],
    ['{"a":1}x'],
    ['[18446744073709551615]]'],
    ['01'],
    ['{"n":0123456789012345678}'],
    ['NaN'],
    ["{'a':1}"],
  ])('throws SyntaxError on invalid JSON %j', (text) => {
    expect(() => parseJsonExact(text)).toThrow(SyntaxError);
  });

  it('equals JSON.parse for any JSON whose numbers are safe (fast path)', () => {
    fc.assert(
      fc.property(fc.jsonValue().filter(isSafeJson), (value) => {
        const text = JSON.stringify(value);
        expect(parseJsonExact(text)).toEqual(JSON.parse(text));
      }),
      { numRuns: 300 },
    );
  });

  it('equals JSON.parse for any JSON whose numbers are safe (lossless path)', () => {
    fc.assert(
      fc.property(fc.jsonValue().filter(isSafeJson), (value) => {
        // A 16-digit run inside a string forces the lossless parser.
        const text = JSON.stringify({ v: value, pad: '1234567890123456' });
        expect(parseJsonExact(text)).toEqual(JSON.parse(text));
      }),
      { numRuns: 300 },
    );
  });

  it('round-trips any bigint through stringifyJson and parseJsonExact', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 130n), max: 2n ** 130n }), (big) => {
        const parsed = parseJsonExact(stringifyJson({ params: [big, 'x'] })) as { params: unknown[] };
        const inSafeRange = big >= -MAX_SAFE && big <= MAX_SAFE;
        expect(parsed.params[0]).toBe(inSafeRange ? Number(big) : big);
      }),
      { numRuns: 500 },
    );
  });
});

describe('stringifyJson', () => {
  it('writes bigints as JSON integers', () => {
    expect(stringifyJson([18446744073709551615n, { minContextSlot: 1n }])).toBe(
      '[18446744073709551615,{"minContextSlot":1}]',
    );
  });

  it('writes values without bigints exactly as JSON.stringify does', () => {
    const value = { a: [1, 'two', null, true], b: { c: 1.5 }, d: undefined, e: new Date(0) };
    expect(stringifyJson(value)).toBe(JSON.stringify(value));
  });

  it('treats undefined and functions in a bigint-bearing value as JSON.stringify does', () => {
    expect(stringifyJson({ n: 1n, skip: undefined, arr: [undefined, 2n] })).toBe('{"n":1,"arr":[null,2]}');
  });

  it('throws TypeError for a value with no JSON form', () => {
    expect(() => stringifyJson(undefined)).toThrow(TypeError);
  });
});

describe('parseJsonExact fast-path detection', () => {
  it('keeps long digit runs inside strings as text, wherever they stand', () => {
    const text = '{"pubkey":"So11111111111111111111111111111111111111112","note":"x:12345678901234567890","n":[1,2]}';
    expect(parseJsonExact(text)).toEqual(JSON.parse(text));
  });

  it('finds an unsafe integer after whitespace, a minus sign, or at the start of an array', () => {
    expect(parseJsonExact('{"a": \n 9007199254740993}')).toEqual({ a: 9007199254740993n });
    expect(parseJsonExact('[ -9007199254740993 ]')).toEqual([-9007199254740993n]);
    expect(parseJsonExact('{"s":"So1111111111111111111","v":18446744073709551615}')).toEqual({ s: 'So1111111111111111111', v: 18446744073709551615n });
  });
});
