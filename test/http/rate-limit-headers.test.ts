import { describe, expect, it } from 'vitest';
import { rateLimitAllowedRps, rateLimitResetDelayMs } from '../../src/http/rate-limit-headers.js';

const WALL_NOW_MS = Date.UTC(2025, 0, 1);

describe('X-RateLimit-Remaining: 0 with its reset is a provider delay', () => {
  it.each([
    [{ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '3' }, 3_000],
    [{ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(WALL_NOW_MS / 1000 + 7) }, 7_000],
    [{ 'ratelimit-remaining': '0', 'ratelimit-reset': '2' }, 2_000],
    [{ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '3600' }, 60_000],
  ])('%j: %d ms', (headers, delayMs) => {
    expect(rateLimitResetDelayMs(headers, WALL_NOW_MS)).toBe(delayMs);
  });

  it.each([[{ 'x-ratelimit-remaining': '5', 'x-ratelimit-reset': '3' }], [{ 'x-ratelimit-reset': '3' }], [{ 'x-ratelimit-remaining': '0' }], [{ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': 'soon' }]])(
    '%j: none',
    (headers) => {
      expect(rateLimitResetDelayMs(headers, WALL_NOW_MS)).toBeUndefined();
    },
  );
});

describe('a limit with its window is an allowed rate', () => {
  it.each([
    [{ 'x-ratelimit-limit': '100;w=10' }, 10],
    [{ 'ratelimit-limit': '100, 100;w=4' }, 25],
    [{ 'ratelimit-policy': '50;w=1;comment="per key"' }, 50],
  ])('%j: %d req/s', (headers, rps) => {
    expect(rateLimitAllowedRps(headers)).toBe(rps);
  });

  it.each([[{ 'x-ratelimit-limit': '100' }], [{}], [{ 'x-ratelimit-limit': '0;w=10' }]])('%j: none (no window, no rate)', (headers) => {
    expect(rateLimitAllowedRps(headers)).toBeUndefined();
  });
});
