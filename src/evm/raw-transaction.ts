import { hexToBytes } from '@noble/hashes/utils';

/**
 * The nonce of a signed EVM transaction, read from its RLP bytes without any crypto:
 * legacy `rlp([nonce, …])`, typed `type ‖ rlp([chainId, nonce, …])` (EIP-2718 types 1–4).
 * `undefined` when the bytes are not such a transaction.
 */
export function nonceOfRawTransaction(raw: `0x${string}`): bigint | undefined {
  const bytes = hexToBytes(raw.slice(2));
  const first = bytes[0];
  if (first === undefined) return undefined;
  const typed = first <= 0x7f;
  const list = readListStart(bytes, typed ? 1 : 0);
  if (list === undefined) return undefined;
  let offset = list;
  if (typed) {
    const chainId = readItem(bytes, offset);
    if (chainId === undefined) return undefined;
    offset = chainId.end;
  }
  const nonce = readItem(bytes, offset);
  if (nonce === undefined || nonce.length > 8) return undefined;
  let value = 0n;
  for (let i = nonce.start; i < nonce.start + nonce.length; i++) value = (value << 8n) | BigInt(bytes[i] ?? 0);
  return value;
}

/** Offset of the first item inside the RLP list that starts at `offset`. */
function readListStart(bytes: Uint8Array, offset: number): number | undefined {
  const prefix = bytes[offset];
  if (prefix === undefined || prefix < 0xc0) return undefined;
  if (prefix <= 0xf7) return offset + 1;
  return offset + 1 + (prefix - 0xf7);
}

/** A string item (not a list) at `offset`: where its payload starts, its length and where it ends. */
function readItem(bytes: Uint8Array, offset: number): { start: number; length: number; end: number } | undefined {
  const prefix = bytes[offset];
  if (prefix === undefined || prefix >= 0xc0) return undefined;
  if (prefix < 0x80) return { start: offset, length: 1, end: offset + 1 };
  if (prefix <= 0xb7) {
    const length = prefix - 0x80;
    return offset + 1 + length <= bytes.length ? { start: offset + 1, length, end: offset + 1 + length } : undefined;
  }
  const sizeBytes = prefix - 0xb7;
  if (sizeBytes > 4) return undefined;
  let length = 0;
  for (let i = 1; i <= sizeBytes; i++) length = length * 256 + (bytes[offset + i] ?? 0);
  const start = offset + 1 + sizeBytes;
  return start + length <= bytes.length ? { start, length, end: start + length } : undefined;
}
