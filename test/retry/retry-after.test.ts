import { describe, expect, it } from 'vitest';
import { MAX_PROVIDER_DELAY_MS, parseRetryAfter } from '../../src/retry/retry-after.js';

const NOW = Date.UTC(2015, 9, 21, 7, 28, 0); // Wed, 21 Oct 2015 07:28:00 GMT

describe('parseRetryAfter', () => {
  it.each([
    ['0', 0],
    ['1', 1_000],
    ['30', 30_000],
    [' 5 ', 5_000],
    ['1.5', 1_500],
    ['0.0001', 1],
    ['60', 60_000],
  ])('reads delta-seconds %j as %d ms', (value, expected) => {
    expect(parseRetryAfter(value, NOW)).toBe(expected);
  });

  it.each([
    ['Wed, 21 Oct 2015 07:28:10 GMT', 10_000],
    ['Wednesday, 21-Oct-15 07:28:20 GMT', 20_000],
    ['Wed Oct 21 07:28:30 2015', 30_000],
  ])('reads the HTTP-date %j as the time left until it', (value, expected) => {
    expect(parseRetryAfter(value, NOW)).toBe(expected);
  });

  it('reads an asctime date as GMT whatever the local zone', () => {
    // Node re-reads process.env.TZ on assignment; a local-time reading would be hours off.
    const saved = process.env['TZ'];
    process.env['TZ'] = 'America/New_York';
    try {
      expect(parseRetryAfter('Wed Oct 21 07:28:05 2015', NOW)).toBe(5_000);
      expect(parseRetryAfter('Wed Oct 21 03:28:05 2015', NOW)).toBe(0);
    } finally {
      if (saved === undefined) delete process.env['TZ'];
      else process.env['TZ'] = saved;
    }
  });

  it.each([
    ['Wed, 21 Oct 2015 07:27:00 GMT'],
    ['Thu, 01 Jan 1970 00:00:00 GMT'],
    ['Wed, 21 Oct 2015 07:28:00 GMT'],
  ])('gives 0 for an HTTP-date at or before now (%j)', (value) => {
    expect(parseRetryAfter(value, NOW)).toBe(0);
  });

  it.each([['-1'], ['-30'], ['-0.5']])('gives 0 for a negative delay %j', (value) => {
    expect(parseRetryAfter(value, NOW)).toBe(0);
  });

  it.each([
    ['3600'],
    ['99999999999999999999'],
    ['Thu, 22 Oct 2015 07:28:00 GMT'],
  ])('caps %j at MAX_PROVIDER_DELAY_MS', (value) => {
    expect(parseRetryAfter(value, NOW)).toBe(MAX_PROVIDER_DELAY_MS);
    expect(MAX_PROVIDER_DELAY_MS).toBe(60_000);
  });

  it.each([
    [undefined],
    [null],
    [''],
    ['   '],
    ['soon'],
    ['1e3'],
    ['0x10'],
    ['Infinity'],
    ['NaN'],
    ['10 seconds'],
    ['Wed, 32 Oct 2015 07:28:00 GMT'],
    ['Wed, 21 Oct 2015 07:28:00 PST'],
  ])('ignores the unreadable value %j', (value) => {
    expect(parseRetryAfter(value, NOW)).toBeUndefined();
  });
});
