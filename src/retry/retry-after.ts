/**
 * `Retry-After` (RFC 9110 §10.2.3): either delta-seconds or an HTTP-date. A pure function
 * of the header and the wall clock, so it is exact under a fake clock.
 *
 * Peers get this wrong (viem's `parseInt` turns an HTTP-date into NaN and retries at once;
 * ethers reads the integer as milliseconds), so both forms are handled here, and any
 * provider delay is capped: a misconfigured or hostile server must not park an endpoint
 * for hours.
 */

/** The longest delay a provider may impose on one role. */
export const MAX_PROVIDER_DELAY_MS = 60_000;

/** Delta-seconds; decimals and a sign are tolerated (a negative delay means "now"). */
const DELTA_SECONDS = /^[+-]?\d+(?:\.\d+)?$/;

/** IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`. */
const IMF_FIXDATE = /^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/;
/** Obsolete RFC 850: `Sunday, 06-Nov-94 08:49:37 GMT`. */
const RFC_850 = /^[A-Za-z]{6,9}, \d{2}-[A-Za-z]{3}-\d{2} \d{2}:\d{2}:\d{2} GMT$/;
/** Obsolete asctime: `Sun Nov  6 08:49:37 1994` (no zone; always GMT by definition). */
const ASCTIME = /^[A-Za-z]{3} [A-Za-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/;

/** Clamps a delay in milliseconds into `[0, MAX_PROVIDER_DELAY_MS]`, rounding up. */
export function clampProviderDelayMs(delayMs: number): number {
  if (!(delayMs > 0)) return 0;
  return Math.min(MAX_PROVIDER_DELAY_MS, Math.ceil(delayMs));
}

/**
 * Reads a `Retry-After` value as a delay in milliseconds from `nowMs` (epoch ms).
 *
 * @returns the delay in ms, `0` for a negative delta or a date in the past, at most
 *   60 000 (a provider's delay is capped at 60 s); `undefined` when the value is absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined | null, nowMs: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  const text = value.trim();
  if (text === '') return undefined;

  if (DELTA_SECONDS.test(text)) {
    return clampProviderDelayMs(Number(text) * 1000);
  }

  let dateMs: number;
  if (IMF_FIXDATE.test(text) || RFC_850.test(text)) {
    dateMs = Date.parse(text);
  } else if (ASCTIME.test(text)) {
    // Date.parse reads a zone-less date as local time; asctime is GMT.
    dateMs = Date.parse(`${text} GMT`);
  } else {
    // Date.parse accepts almost anything ("1", "2024"); only HTTP-date shapes are dates.
    return undefined;
  }
  if (Number.isNaN(dateMs)) return undefined;
  return clampProviderDelayMs(dateMs - nowMs);
}
