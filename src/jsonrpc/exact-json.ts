/**
 * JSON with exact integers. Lamports, wei and slots are u64/u128; routing
 * them through a JS `number` silently rounds anything above 2^53. Integers that a
 * `number` cannot hold exactly come back as `bigint`; every other number stays a
 * `number`, so consumers see the same values `JSON.parse` would give them.
 *
 * Cost: an unsafe integer needs at least 16 digits (2^53 = 9007199254740992), and a JSON
 * number always follows `:`, `,`, `[` or the start of the text (whitespace allowed). A body with no such 16-digit
 * run cannot contain one and goes straight to the native `JSON.parse`; digit runs inside
 * strings (base58 keys, hex data) do not trigger the slow path. Only bodies that may
 * hold an unsafe integer pay for the lossless parser.
 */
import { parse as parseLossless, stringify as stringifyLossless } from 'lossless-json';

const LONG_DIGIT_RUN = /\d{16,}/g;

/**
 * Whether the text has a 16+ digit run in number position (after `:`, `,`, `[` or at the
 * start, optional `-` and whitespace between). Runs inside strings (base58 keys such as
 * `So11111111…`) are preceded by other characters and do not count.
 */
function mayHoldUnsafeInteger(text: string): boolean {
  LONG_DIGIT_RUN.lastIndex = 0;
  for (let match = LONG_DIGIT_RUN.exec(text); match !== null; match = LONG_DIGIT_RUN.exec(text)) {
    let i = match.index - 1;
    if (i >= 0 && text.charCodeAt(i) === 0x2d) i--; // '-'
    while (i >= 0 && isJsonSpace(text.charCodeAt(i))) i--;
    if (i < 0) return true;
    const c = text.charCodeAt(i);
    if (c === 0x3a || c === 0x2c || c === 0x5b) return true; // ':' ',' '['
  }
  return false;
}

function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}
const INTEGER_TEXT = /^-?\d+$/;

function parseNumberExact(text: string): number | bigint {
  const value = Number(text);
  if (INTEGER_TEXT.test(text) && !Number.isSafeInteger(value)) {
    return BigInt(text);
  }
  // Floats (and exponent forms such as 1e30) keep JSON.parse semantics, `-0` included.
  return value;
}

/** JSON.parse keeps the last of duplicate keys; lossless-json would throw. Match JSON.parse. */
function keepLastDuplicate(info: { newValue: unknown }): unknown {
  return info.newValue;
}

/**
 * Parses JSON text, returning integers outside the safe range as exact `bigint`s.
 *
 * @throws SyntaxError when `text` is not valid JSON.
 */
export function parseJsonExact(text: string): unknown {
  if (!mayHoldUnsafeInteger(text)) {
    return JSON.parse(text) as unknown;
  }
  return parseLossless(text, null, {
    parseNumber: parseNumberExact,
    onDuplicateKey: keepLastDuplicate,
  });
}

function containsBigInt(value: unknown, depth: number): boolean {
  if (typeof value === 'bigint') return true;
  if (typeof value !== 'object' || value === null || depth > 64) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (containsBigInt(item, depth + 1)) return true;
    return false;
  }
  for (const key in value) {
    if (Object.hasOwn(value, key) && containsBigInt((value as Record<string, unknown>)[key], depth + 1)) {
      return true;
    }
  }
  return false;
}

/**
 * Serializes a value as JSON, writing `bigint`s as plain JSON integers (u64 request
 * parameters, e.g. `minContextSlot`). The native `JSON.stringify` runs first; only values
 * it refuses because of a `bigint` go through the lossless writer.
 *
 * @throws TypeError when `value` cannot be represented as JSON (e.g. `undefined`).
 */
export function stringifyJson(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    // The native serializer refuses bigints; only then pay for the walk and the lossless writer.
    if (!(error instanceof TypeError) || !containsBigInt(value, 0)) throw error;
    text = stringifyLossless(value);
  }
  if (text === undefined) {
    throw new TypeError('value is not representable as JSON');
  }
  return text;
}
