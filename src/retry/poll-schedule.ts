/** How often a wait polls: from `initialIntervalMs`, × `factor` per poll, up to `maxIntervalMs`. */
export interface PollSchedule {
  /** Wait before the second poll, in ms. */
  readonly initialIntervalMs?: number;
  /** Longest wait between polls, in ms. */
  readonly maxIntervalMs?: number;
  /** Growth of the wait per poll. @default 1.5 */
  readonly factor?: number;
}

/** The wait after poll number `round` (1 for the first), in ms. Pure. */
export function pollIntervalMs(round: number, schedule: PollSchedule, defaults: Required<PollSchedule>): number {
  const initial = schedule.initialIntervalMs ?? defaults.initialIntervalMs;
  const max = schedule.maxIntervalMs ?? defaults.maxIntervalMs;
  const factor = schedule.factor ?? defaults.factor;
  return Math.min(max, initial * factor ** Math.max(0, round - 1));
}

/** Validates a schedule given by a caller: positive, finite numbers; `factor` ≥ 1. Returns the name of the bad field, if any. */
export function badPollScheduleField(schedule: unknown): string | undefined {
  if (schedule === undefined) return undefined;
  if (typeof schedule !== 'object' || schedule === null) return 'poll';
  const s = schedule as Record<string, unknown>;
  for (const field of ['initialIntervalMs', 'maxIntervalMs'] as const) {
    const value = s[field];
    if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)) return `poll.${field}`;
  }
  const factor = s['factor'];
  if (factor !== undefined && (typeof factor !== 'number' || !Number.isFinite(factor) || factor < 1)) return 'poll.factor';
  return undefined;
}
