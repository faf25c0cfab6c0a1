import { readFileSync } from 'node:fs';
import { base58, base64 } from '@scure/base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeCompactU16,
  solanaSignatureFromSendParams,
  solanaSignatureFromWire,
} from '../../src/jsonrpc/transaction-id.js';

/** Compact-u16 encoding, written independently of the decoder under test. */
function compactU16(value: number): number[] {
  const out: number[] = [];
  let rest = value;
  for (;;) {
    const low = rest & 0x7f;
    rest >>= 7;
    if (rest === 0) {
      out.push(low);
      return out;
    }
    out.push(low | 0x80);
  }
}

function signatureBytes(seed: number): Uint8Array {
  return Uint8Array.from({ length: 64 }, (_, i) => (seed * 31 + i * 7) & 0xff);
}

/** A wire transaction: compact count, `count` signatures, then `messageBytes` bytes. */
function wire(count: number, messageBytes = 40): Uint8Array {
  const parts: number[] = compactU16(count);
  for (let i = 0; i < count; i++) parts.push(...signatureBytes(i + 1));
  for (let i = 0; i < messageBytes; i++) parts.push((i * 13) & 0xff);
  return Uint8Array.from(parts);
}

const first = base58.encode(signatureBytes(1));

describe('decodeCompactU16', () => {
  it('reads every u16 back from its canonical 1–3 byte encoding', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffff }), (value) => {
        const bytes = compactU16(value);
        expect(decodeCompactU16(Uint8Array.from(bytes))).toEqual({ value, size: bytes.length });
      }),
    );
  });

  it('uses one byte below 128, two from 128 and three from 16384', () => {
    expect(decodeCompactU16(Uint8Array.from([0x7f]))).toEqual({ value: 127, size: 1 });
    expect(decodeCompactU16(Uint8Array.from([0x80, 0x01]))).toEqual({ value: 128, size: 2 });
    expect(decodeCompactU16(Uint8Array.from([0x80, 0x80, 0x01]))).toEqual({ value: 16_384, size: 3 });
    expect(decodeCompactU16(Uint8Array.from([0xff, 0xff, 0x03]))).toEqual({ value: 0xffff, size: 3 });
  });

  it('rejects truncated, overflowing, over-long and non-canonical encodings', () => {
    expect(decodeCompactU16(Uint8Array.from([]))).toBeUndefined();
    expect(decodeCompactU16(Uint8Array.from([0x80]))).toBeUndefined();
    expect(decodeCompactU16(Uint8Array.from([0xff, 0xff, 0x04]))).toBeUndefined();
    expect(decodeCompactU16(Uint8Array.from([0x80, 0x80, 0x80, 0x01]))).toBeUndefined();
    expect(decodeCompactU16(Uint8Array.from([0x80, 0x00]))).toBeUndefined();
    expect(decodeCompactU16(Uint8Array.from([0x81, 0x80, 0x00]))).toBeUndefined();
  });
});

describe('solanaSignatureFromWire', () => {
  it('returns the base58 of the first signature of base64 wire bytes', () => {
    expect(solanaSignatureFromWire(base64.encode(wire(1)), 'base64')).toBe(first);
  });

  it('returns the base58 of the first signature of base58 wire bytes', () => {
    expect(solanaSignatureFromWire(base58.encode(wire(2)), 'base58')).toBe(first);
  });

  it.each([2, 127, 128, 129, 300])('skips a compact-u16 count of %i and still reads the first signature', (count) => {
    expect(solanaSignatureFromWire(base64.encode(wire(count)), 'base64')).toBe(first);
  });

  it('reads the first signature behind a three-byte count (16384 signatures)', () => {
    expect(solanaSignatureFromWire(base64.encode(wire(16_384, 1)), 'base64')).toBe(first);
  });

  it('returns undefined for a count of 0', () => {
    expect(solanaSignatureFromWire(base64.encode(Uint8Array.from([0, 1, 2, 3])), 'base64')).toBeUndefined();
  });

  it('returns undefined when the declared signatures or the message are missing', () => {
    const full = wire(3);
    const cutInSignatures = full.subarray(0, 1 + 64 * 2 + 10);
    const noMessage = full.subarray(0, 1 + 64 * 3);
    expect(solanaSignatureFromWire(base64.encode(cutInSignatures), 'base64')).toBeUndefined();
    expect(solanaSignatureFromWire(base64.encode(noMessage), 'base64')).toBeUndefined();
    expect(solanaSignatureFromWire(base64.encode(wire(128).subarray(0, 1)), 'base64')).toBeUndefined();
  });

  it('counts a multi-byte compact-u16 prefix when checking that a message follows', () => {
    expect(solanaSignatureFromWire(base64.encode(wire(128, 0)), 'base64')).toBeUndefined();
    expect(solanaSignatureFromWire(base64.encode(wire(128, 1)), 'base64')).toBe(first);
  });

  it('returns undefined for text that is not valid in the declared encoding', () => {
    expect(solanaSignatureFromWire('not base64 at all!', 'base64')).toBeUndefined();
    expect(solanaSignatureFromWire('0OIl', 'base58')).toBeUndefined();
    expect(solanaSignatureFromWire('', 'base64')).toBeUndefined();
    // Valid base64 read as base58 fails on '+' and '/'.
    expect(solanaSignatureFromWire('AQ+/', 'base58')).toBeUndefined();
  });
});

describe('solanaSignatureFromSendParams', () => {
  it('reads base64 when the config says so', () => {
    expect(solanaSignatureFromSendParams([base64.encode(wire(1)), { encoding: 'base64' }])).toBe(first);
  });

  it("uses Solana's default encoding, base58, when no encoding is given", () => {
    expect(solanaSignatureFromSendParams([base58.encode(wire(1))])).toBe(first);
    expect(solanaSignatureFromSendParams([base58.encode(wire(1)), { skipPreflight: true }])).toBe(first);
    expect(solanaSignatureFromSendParams([base64.encode(wire(1))])).toBeUndefined();
  });

  it('returns undefined for an unknown encoding or a non-string transaction', () => {
    expect(solanaSignatureFromSendParams([base64.encode(wire(1)), { encoding: 'base32' }])).toBeUndefined();
    expect(solanaSignatureFromSendParams([42, { encoding: 'base64' }])).toBeUndefined();
    expect(solanaSignatureFromSendParams([])).toBeUndefined();
  });

  it('reads the signature recorded in the sendTransaction fixture', () => {
    const fixture = JSON.parse(
      readFileSync(new URL('../../fixtures/solana-sendTransaction.json', import.meta.url), 'utf8'),
    ) as { request: { params: unknown[] }; expect: { signature: string } };
    expect(solanaSignatureFromSendParams(fixture.request.params)).toBe(fixture.expect.signature);
  });
});
