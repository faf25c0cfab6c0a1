import { solanaSignatureFromWire } from '../../src/jsonrpc/transaction-id.js';

/** A base64 Solana wire transaction: compact-u16 count 1, a 64-byte signature unique to `n`, then message bytes. */
export function wireTransaction(n: number): string {
  const bytes = new Uint8Array(1 + 64 + 48);
  bytes[0] = 1;
  for (let i = 0; i < 64; i++) bytes[1 + i] = (i * 37 + 11) & 0xff;
  new DataView(bytes.buffer).setUint32(1, n);
  for (let i = 65; i < bytes.length; i++) bytes[i] = (i * 13) & 0xff;
  return Buffer.from(bytes).toString('base64');
}

/** The transaction id (base58 signature) of a wire transaction built by {@link wireTransaction}. */
export function signatureOf(wire: string): string {
  const signature = solanaSignatureFromWire(wire, 'base64');
  if (signature === undefined) throw new Error('test wire transaction is malformed');
  return signature;
}
