/**
 * Whether the store is fit for shared mode, judged from the answers of its own commands. Pure
 * state, no timers: the coordinator reports every command's outcome and acts on the verdict.
 *
 * Leaving shared mode takes several failures in a row (a client known to be disconnected is
 * the exception: nothing can be sent), so one late callback — a busy event loop, not a slow
 * Redis — does not empty everyone's shared bucket on the way back. Coming back takes WRITES
 * answered without a failure for {@link PROVE_WRITABLE_MS}: a Redis that answers reads but
 * refuses writes (out of memory under `noeviction`, a read-only replica) is down for the
 * fleet, and a mode that flipped on every read would starve every call.
 */

/** Why a command failed, as the fleet reports it (`FleetStatus.reason`). */
export type FleetFailure = 'unreachable' | 'timeout' | 'error' | 'auth' | 'refused';

/** Failures in a row, with no write answered in between, that turn a shared process local. */
export const LEAVE_AFTER_MISSES = 3;
/** How long writes must keep succeeding, from the first one sent, before a local process shares again, in ms. */
export const PROVE_WRITABLE_MS = 1_000;

/** A rejected command's failure: Redis refusing who we are, refusing writes, or anything else. */
export function failureOf(error: unknown): FleetFailure {
  const message = String((error as { message?: unknown } | null)?.message ?? '');
  if (/^(NOAUTH|WRONGPASS|NOPERM)\b/.test(message)) return 'auth';
  if (/^(OOM|READONLY|MISCONF)\b/.test(message)) return 'refused';
  return 'error';
}

export class StoreJudge {
  #misses = 0;
  #writableSinceMs: number | undefined;

  /** A command was answered in time; `write`: it changed the store. True: go back to shared mode. */
  answered(mode: 'shared' | 'local', write: boolean, sentAtMs: number): boolean {
    // A read proves nothing: a replica or a full Redis answers reads and refuses every write.
    if (!write) return false;
    this.#misses = 0;
    if (mode === 'shared') return false;
    this.#writableSinceMs ??= sentAtMs;
    return sentAtMs - this.#writableSinceMs >= PROVE_WRITABLE_MS;
  }

  /** A command failed. True: leave shared mode. */
  failed(mode: 'shared' | 'local', failure: FleetFailure): boolean {
    this.#writableSinceMs = undefined;
    if (mode === 'local') return false;
    if (failure === 'unreachable') return true;
    this.#misses++;
    return this.#misses >= LEAVE_AFTER_MISSES;
  }

  /** The mode changed: both counts start over. */
  reset(): void {
    this.#misses = 0;
    this.#writableSinceMs = undefined;
  }
}
