/**
 * What a client that is not `ready` means for the fleet. Until the store first answers, and at
 * most `readyTimeoutMs` from creation, it is still starting: the process takes its local share
 * under reason `starting`, which is no outage. Past that, a client that never became ready is
 * `unreachable` — then a local process still `starting` is only renamed, a shared one is judged
 * like any failed command. Pure.
 */
export type NotReadyVerdict = 'starting' | 'rename-unreachable' | 'unreachable';

export function notReadyVerdict(nowMs: number, startingUntilMs: number, mode: 'shared' | 'local', reason: string): NotReadyVerdict {
  if (nowMs < startingUntilMs) return 'starting';
  return mode === 'local' && reason === 'starting' ? 'rename-unreachable' : 'unreachable';
}
