/**
 * What the pool did lately, per endpoint: attempts in the last `windowMs` (for each
 * endpoint's share of traffic) and their latencies (p50/p99). Pure bookkeeping over a
 * bounded ring of samples per endpoint; time comes from the caller.
 */

/** Latency samples kept per endpoint (older ones are dropped first). */
export const MAX_SAMPLES_PER_ENDPOINT = 1024;

export interface RecentEndpointActivity {
  readonly endpointId: string;
  /** Attempts that ended in the window (successes and failures). */
  readonly attempts: number;
  /** This endpoint's part of all attempts in the window (0..1; 0 when there were none). */
  readonly share: number;
  /** Latency quantiles of those attempts, in ms; undefined without any. */
  readonly p50Ms: number | undefined;
  readonly p99Ms: number | undefined;
}

class Ring {
  readonly at = new Float64Array(MAX_SAMPLES_PER_ENDPOINT);
  readonly latency = new Float64Array(MAX_SAMPLES_PER_ENDPOINT);
  size = 0;
  next = 0;

  push(atMs: number, latencyMs: number): void {
    this.at[this.next] = atMs;
    this.latency[this.next] = latencyMs;
    this.next = (this.next + 1) % MAX_SAMPLES_PER_ENDPOINT;
    this.size = Math.min(this.size + 1, MAX_SAMPLES_PER_ENDPOINT);
  }

  since(fromMs: number): number[] {
    const values: number[] = [];
    for (let i = 0; i < this.size; i++) if (this.at[i]! >= fromMs) values.push(this.latency[i]!);
    return values;
  }
}

/** The nearest-rank quantile of sorted values. */
export function quantile(sorted: readonly number[], q: number): number | undefined {
  if (sorted.length === 0) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export class RecentActivity {
  readonly #rings = new Map<string, Ring>();
  readonly windowMs: number;

  /** `endpointIds`: the configured endpoints (the only keys ever stored). */
  constructor(endpointIds: readonly string[], windowMs: number) {
    this.windowMs = windowMs;
    for (const id of endpointIds) this.#rings.set(id, new Ring());
  }

  record(endpointId: string, atMs: number, latencyMs: number): void {
    this.#rings.get(endpointId)?.push(atMs, latencyMs);
  }

  /** Per endpoint, in configuration order. */
  summarize(nowMs: number): RecentEndpointActivity[] {
    const fromMs = nowMs - this.windowMs;
    const samples = [...this.#rings].map(([endpointId, ring]) => ({ endpointId, latencies: ring.since(fromMs).sort((a, b) => a - b) }));
    const total = samples.reduce((sum, s) => sum + s.latencies.length, 0);
    return samples.map(({ endpointId, latencies }) => ({
      endpointId,
      attempts: latencies.length,
      share: total === 0 ? 0 : latencies.length / total,
      p50Ms: quantile(latencies, 0.5),
      p99Ms: quantile(latencies, 0.99),
    }));
  }
}
