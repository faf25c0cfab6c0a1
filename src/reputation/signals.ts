/**
 * Reputation signals. Success is scaled by a latency multiplier; failure
 * severities are fixed deltas; `none` is no-fault (caller abort, capability limits, our
 * own deadline cutting a healthy attempt, a cancelled hedge loser).
 */
export type FailureSeverity = 'minor' | 'major' | 'critical' | 'fatal';
export type ReputationSignalKind = 'success' | 'recovery' | 'slow' | 'very-slow' | FailureSeverity | 'none';

export interface ReputationSignal {
  readonly kind: ReputationSignalKind;
  /** For `success`: the observed latency, which sets the multiplier by chain profile. */
  readonly latencyMs?: number;
  /** A protocol violation (empty 2xx body, fabricated -32700, id mismatch): feeds the invalid-rate detector. */
  readonly protocolViolation?: boolean;
  /** Signals from health probes move the score but never feed the rate detectors. */
  readonly isHealthCheck?: boolean;
}
