/**
 * The call and attempt metrics both exporters feed from the pool's call hook, and the labels
 * of a settled call and an attempt (see `definitions.ts` for the event counters and gauges).
 */
import { TRANSPORT_ERROR_CODES } from '../errors/codes.js';

/** The call and attempt metrics, fed by the pool's call hook. */
export const CALL_METRICS = {
  calls: { name: 'calls_total', help: 'Calls by kind, bounded method (table or user-classified, else other) and outcome code.', labels: ['kind', 'method', 'outcome_code'] },
  attempts: { name: 'attempts_total', help: 'Attempts by endpoint, kind, failure cause (none = success) and dispatch state.', labels: ['endpoint', 'kind', 'cause', 'dispatch'] },
  retries: { name: 'retries_total', help: 'Retry attempts (attempt 2 and later of a call), per endpoint that took them.', labels: ['endpoint'] },
  callDuration: { name: 'call_duration_seconds', help: 'Call duration (admission, attempts, backoffs), by kind only.', labels: ['kind'] },
  attemptDuration: { name: 'attempt_duration_seconds', help: 'Attempt duration, by endpoint only.', labels: ['endpoint'] },
} as const;

/** Default histogram buckets, in seconds: 5 ms to 30 s. */
export const DEFAULT_DURATION_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The outcome label of a settled call: `ok`, a `TransportError` code, or `other`. */
export function outcomeCode(error: unknown): string {
  if (error === undefined) return 'ok';
  const code: unknown = typeof error === 'object' && error !== null ? Reflect.get(error, 'code') : undefined;
  return typeof code === 'string' && (TRANSPORT_ERROR_CODES as readonly string[]).includes(code) ? code : 'other';
}

/** The cause label of an attempt. */
export function causeLabel(outcome: 'success' | 'failure' | 'lost', cause: string | undefined): string {
  return outcome === 'success' ? 'none' : outcome === 'lost' ? 'hedge-lost' : (cause ?? 'other');
}
