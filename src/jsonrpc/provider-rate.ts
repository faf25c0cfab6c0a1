/**
 * The rate a provider says it allows, from a JSON-RPC rate-limit error's `data`: Infura
 * answers `-32005` with `allowed_rps` either nested (`data.rate.allowed_rps`, INFURA/infura
 * #201) or flat (`data.allowed_rps`, ethers PR #640). A learned rate takes it as it is.
 */
function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `data` itself, then its `rate` object: where Infura puts its rate-limit fields. */
export function rateLimitFieldsOf(data: unknown): readonly Record<string, unknown>[] {
  if (!isRecord(data)) return [];
  return isRecord(data.rate) ? [data, data.rate] : [data];
}

/** Infura's `allowed_rps`, in requests per second; undefined when absent or not a positive finite number. */
export function providerAllowedRps(data: unknown): number | undefined {
  for (const fields of rateLimitFieldsOf(data)) {
    const value = fields.allowed_rps;
    if (typeof value === 'number' && Number.isFinite(value) && value > 0) return value;
  }
  return undefined;
}
