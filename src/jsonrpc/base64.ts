/**
 * Strict base64 decoding (RFC 4648, padded, canonical) on the platform's `atob`, for reading a
 * send's wire transaction: the same answers as `base64.decode` of `@scure/base`, without
 * bringing that library's codecs into the send-id code a page loads (test/jsonrpc/base64.test.ts
 * compares them).
 */

const PADDED_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The bytes of padded base64 text, or `undefined` for anything else (no padding, whitespace, non-zero trailing bits). */
export function decodeBase64(text: string): Uint8Array | undefined {
  if (!PADDED_BASE64.test(text)) return undefined;
  const binary = atob(text);
  // Canonical only: unused trailing bits must be zero, as a strict decoder requires.
  if (btoa(binary) !== text) return undefined;
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
