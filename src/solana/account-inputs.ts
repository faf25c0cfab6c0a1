import { base58, base64 } from '@scure/base';
import { SOLANA_MAX_ACCOUNT_DATA_BYTES } from './account-data.js';
import { checkSafeUint, invalidInput } from './inputs.js';

/** Encodings the account calls accept. Base58 (the node's default) is never used: it caps data at 129 bytes. */
export type AccountEncoding = 'base64' | 'jsonParsed';

/** A window of each account's data: `length` bytes from `offset`. */
export interface DataSlice {
  readonly offset: number;
  readonly length: number;
}

/** A `getProgramAccounts` filter: data size, or bytes at an offset. */
export type ProgramAccountsFilter =
  | { readonly dataSize: number | bigint }
  | {
      readonly memcmp: {
        /** Byte offset into the account data. */
        readonly offset: number | bigint;
        /** The bytes to compare: raw bytes, or text in `encoding`. */
        readonly bytes: Uint8Array | string;
        /** Encoding of `bytes` when it is text. @default 'base58' */
        readonly encoding?: 'base58' | 'base64';
      };
    };

/** The node's limits (`MAX_GET_PROGRAM_ACCOUNT_FILTERS`, `MEMCMP_MAX_BYTES`). */
export const MAX_PROGRAM_ACCOUNT_FILTERS = 4;
export const MAX_MEMCMP_BYTES = 128;

export function checkEncoding(value: unknown): AccountEncoding {
  if (value === undefined) return 'base64';
  if (value !== 'base64' && value !== 'jsonParsed') invalidInput('encoding', "'base64' or 'jsonParsed'");
  return value;
}

export function checkDataSlice(value: unknown): DataSlice | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null) return invalidInput('dataSlice', 'an object { offset, length }');
  const slice = value as { offset?: unknown; length?: unknown };
  const offset = checkSafeUint(slice.offset, 'dataSlice.offset') ?? invalidInput('dataSlice.offset', 'a non-negative integer');
  const length = checkSafeUint(slice.length, 'dataSlice.length') ?? invalidInput('dataSlice.length', 'a non-negative integer');
  return { offset, length };
}

/** Per-account data limit: a positive integer of bytes. @default 10 MiB (the largest account Solana allows) */
export function checkMaxDataBytes(value: unknown): number {
  if (value === undefined) return SOLANA_MAX_ACCOUNT_DATA_BYTES;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) invalidInput('maxDataBytes', 'a non-negative integer');
  return value;
}

function memcmpBytes(bytes: unknown, encoding: unknown, field: string): { bytes: string; encoding: 'base58' | 'base64' } {
  if (bytes instanceof Uint8Array) {
    if (bytes.length === 0 || bytes.length > MAX_MEMCMP_BYTES) invalidInput(field, `1 to ${MAX_MEMCMP_BYTES} bytes`);
    return { bytes: base64.encode(bytes), encoding: 'base64' };
  }
  const enc = encoding ?? 'base58';
  if (enc !== 'base58' && enc !== 'base64') invalidInput(`${field}.encoding`, "'base58' or 'base64'");
  if (typeof bytes !== 'string' || bytes.length === 0) return invalidInput(field, `non-empty ${enc} text or a Uint8Array`);
  // base58 decoding is quadratic: bound the text before decoding it.
  if (bytes.length > (enc === 'base58' ? 176 : 172)) invalidInput(field, `at most ${MAX_MEMCMP_BYTES} bytes`);
  let decoded: Uint8Array;
  try {
    decoded = enc === 'base58' ? base58.decode(bytes) : base64.decode(bytes);
  } catch {
    return invalidInput(field, `valid ${enc}`);
  }
  if (decoded.length === 0 || decoded.length > MAX_MEMCMP_BYTES) invalidInput(field, `1 to ${MAX_MEMCMP_BYTES} bytes`);
  return { bytes, encoding: enc };
}

/** Validates `getProgramAccounts` filters and writes them as the node expects. */
export function checkFilters(value: unknown): unknown[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length > MAX_PROGRAM_ACCOUNT_FILTERS) {
    return invalidInput('filters', `an array of at most ${MAX_PROGRAM_ACCOUNT_FILTERS} filters`);
  }
  return value.map((filter: unknown, index) => {
    const field = `filters.${index}`;
    if (typeof filter !== 'object' || filter === null) return invalidInput(field, '{ dataSize } or { memcmp }');
    const f = filter as { dataSize?: unknown; memcmp?: unknown };
    if ('dataSize' in f && !('memcmp' in f)) return { dataSize: checkSafeUint(f.dataSize, `${field}.dataSize`) ?? invalidInput(`${field}.dataSize`, 'a non-negative integer') };
    if ('memcmp' in f && !('dataSize' in f) && typeof f.memcmp === 'object' && f.memcmp !== null) {
      const m = f.memcmp as { offset?: unknown; bytes?: unknown; encoding?: unknown };
      const offset = checkSafeUint(m.offset, `${field}.memcmp.offset`) ?? invalidInput(`${field}.memcmp.offset`, 'a non-negative integer');
      return { memcmp: { offset, ...memcmpBytes(m.bytes, m.encoding, `${field}.memcmp.bytes`) } };
    }
    return invalidInput(field, '{ dataSize } or { memcmp }');
  });
}
