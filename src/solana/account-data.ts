import { base64 } from '@scure/base';
import * as z from 'zod/mini';
import { u64Schema } from './schemas.js';

/**
 * Account data as nodes send it: `[base64 text, 'base64']`, or with `jsonParsed` a parsed
 * object `{ program, parsed, space }` (a node falls back to base64 for accounts it cannot
 * parse). Base64 is decoded to bytes here, under a size limit checked on the text's length
 * before any decoding, so a hostile node cannot make us allocate more than the caller allowed.
 */

/** The largest account Solana allows (`MAX_PERMITTED_DATA_LENGTH`): 10 MiB. */
export const SOLANA_MAX_ACCOUNT_DATA_BYTES = 10 * 1024 * 1024;

/** Account data a node parsed for us (`encoding: 'jsonParsed'`), passed through as sent. */
export interface ParsedAccountData {
  /** The parser that read it, e.g. `spl-token`, `spl-token-2022`, `nonce`, `stake`. */
  readonly program: string;
  /** The parsed value, exactly as the node sent it (integers above 2^53 as `bigint`). */
  readonly parsed: unknown;
  /** Bytes of data in the account. */
  readonly space: bigint;
}

/** An account's data: the raw bytes, or what the node parsed (`jsonParsed`). */
export type AccountData = Uint8Array | ParsedAccountData;

/** Bytes that base64 text of `length` characters decodes to, at most. */
const decodedBytesAtMost = (length: number): number => Math.floor((length * 3) / 4);

/** `[text, 'base64']` → bytes, refusing (`too_big`) text that would decode to more than `maxBytes`. */
export function base64DataSchema(maxBytes: number) {
  return z.pipe(z.tuple([z.string(), z.literal('base64')]), z.transform(([text]: [string, 'base64'], ctx) => {
    if (decodedBytesAtMost(text.length) > maxBytes + 2) {
      ctx.issues.push({ code: 'too_big', origin: 'string', maximum: maxBytes, input: text, message: `account data above ${maxBytes} bytes` });
      return z.NEVER;
    }
    try {
      const bytes = base64.decode(text);
      if (bytes.length <= maxBytes) return bytes;
      ctx.issues.push({ code: 'too_big', origin: 'string', maximum: maxBytes, input: text, message: `account data above ${maxBytes} bytes` });
    } catch {
      ctx.issues.push({ code: 'custom', input: text, message: 'account data is not valid base64' });
    }
    return z.NEVER;
  }));
}

const parsedDataSchema = z.object({ program: z.string(), parsed: z.unknown(), space: u64Schema });

/** Account data in either encoding; `jsonParsed` falls back to base64 per account. The shape picks the schema, so a failure names its real cause. */
export function accountDataSchema(maxBytes: number) {
  const bytes = base64DataSchema(maxBytes);
  const parsed = z.pipe(
    parsedDataSchema,
    z.transform((data: z.output<typeof parsedDataSchema>): ParsedAccountData => ({ program: data.program, parsed: data.parsed, space: data.space })),
  );
  return z.pipe(
    z.unknown(),
    z.transform((value: unknown, ctx): AccountData => {
      const result = Array.isArray(value) ? bytes.safeParse(value) : parsed.safeParse(value);
      if (result.success) return result.data;
      for (const issue of result.error.issues) ctx.issues.push({ ...issue, input: value } as never);
      return z.NEVER;
    }),
  );
}
