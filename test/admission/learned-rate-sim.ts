/**
 * A deterministic simulation for the learned rate's tests: a client with a given demand
 * sends through a {@link LearnedBucket} to a provider with a hidden limit (a token bucket of
 * one second's burst that answers 429 without Retry-After above it). Time is simulated: it
 * advances in 1 ms steps handed to the pure bucket; answers come back after a fixed latency.
 */
import { LearnedBucket } from '../../src/admission/learned-bucket.js';
import { DEFAULT_LEARNED_RATE, type LearnedRateSettings } from '../../src/admission/learned-rate.js';
import { TokenBucket } from '../../src/admission/token-bucket.js';

export interface SimSecond {
  /** Second index since the start. */
  readonly second: number;
  readonly rateRps: number;
  readonly sent: number;
  readonly rateLimited: number;
}

export interface Simulation {
  readonly bucket: LearnedBucket;
  /** Runs for `seconds` with `demandRps` offered and the provider's limit at `limitRps`; returns one row per second. */
  run(seconds: number, demandRps: number, limitRps: number): SimSecond[];
}

export function createSimulation(settings: LearnedRateSettings = DEFAULT_LEARNED_RATE, latencyMs = 20): Simulation {
  let now = 0;
  const bucket = new LearnedBucket(settings, 1, now);
  let provider: TokenBucket | undefined;
  let providerLimit = 0;
  let backlog = 0;
  let second = 0;
  const answers: { atMs: number; ok: boolean }[] = [];
  return {
    bucket,
    run(seconds, demandRps, limitRps) {
      if (limitRps !== providerLimit) {
        providerLimit = limitRps;
        provider = new TokenBucket(limitRps, limitRps, now, Math.min(limitRps, provider?.available(now) ?? limitRps));
      }
      const rows: SimSecond[] = [];
      for (let s = 0; s < seconds; s++) {
        let sent = 0;
        let rateLimited = 0;
        for (let ms = 0; ms < 1000; ms++) {
          now += 1;
          while (answers.length > 0 && answers[0]!.atMs <= now) {
            const answer = answers.shift()!;
            if (!answer.ok) bucket.onRateLimited(now, {});
          }
          backlog = Math.min(backlog + demandRps / 1000, demandRps);
          // Bounded: at most the backlog's whole requests per millisecond.
          while (backlog >= 1 && bucket.waitMs(now) === 0 && bucket.tryTake(now)) {
            backlog -= 1;
            sent++;
            const ok = provider!.tryTake(now);
            if (!ok) rateLimited++;
            answers.push({ atMs: now + latencyMs, ok });
          }
        }
        rows.push({ second: second++, rateRps: bucket.rateRps, sent, rateLimited });
      }
      return rows;
    },
  };
}
