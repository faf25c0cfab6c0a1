import { base64 } from '@scure/base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeBase64 } from '../../src/jsonrpc/base64.js';

/** The send-id code's own strict base64 decoder gives what `@scure/base` gives, for valid and invalid text. */
const scure = (text: string) => {
  try {
    return base64.decode(text);
  } catch {
    return undefined;
  }
};

describe('decodeBase64', () => {
  it('decodes what @scure/base encodes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        expect(decodeBase64(base64.encode(bytes))).toEqual(bytes);
      }),
      { seed: 64, numRuns: 500 },
    );
  });

  it('agrees with @scure/base on any text: missing padding, whitespace, url-safe letters, non-zero trailing bits', () => {
    const chars = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/', '=', '-', '_', ' ', '\n', 'é');
    fc.assert(
      fc.property(fc.array(chars, { maxLength: 24 }).map((a) => a.join('')), (text) => {
        expect(decodeBase64(text)).toEqual(scure(text));
      }),
      { seed: 65, numRuns: 3000 },
    );
    for (const text of ['', 'QQ==', 'QR==', 'QUI=', 'QUJ=', 'QQ', 'QQ=', 'Q===', 'QUJD', ' QUJD', 'QU JD']) expect(decodeBase64(text), text).toEqual(scure(text));
  });
});
