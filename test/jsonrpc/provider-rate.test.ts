import { describe, expect, it } from 'vitest';
import { providerAllowedRps } from '../../src/jsonrpc/provider-rate.js';

describe("Infura's allowed_rps", () => {
  it.each([
    [{ rate: { allowed_rps: 50, backoff_seconds: 0, current_rps: 52.3 } }, 50],
    [{ current_rps: 13.333, allowed_rps: 10.0, backoff_seconds: 30.0 }, 10],
  ])('reads %j as %d req/s', (data, expected) => {
    expect(providerAllowedRps(data)).toBe(expected);
  });

  it.each([[undefined], [null], [{}], [{ allowed_rps: 0 }], [{ allowed_rps: '10' }], [{ rate: { allowed_rps: -1 } }], [[10]]])('finds none in %j', (data) => {
    expect(providerAllowedRps(data)).toBeUndefined();
  });
});
