/**
 * {@link FleetReads} over a {@link FleetBackend}: each command goes through the coordinator's
 * runner, which sends nothing while the fleet is local and bounds the rest by
 * `commandTimeoutMs` (a slow or absent store costs a call at most that, then a node).
 */
import type { FleetBackend } from './backend.js';
import type { FleetReads } from './types.js';

/** How long a claim freed without an answer makes readers ask their nodes at once: a read that was not final a moment ago is not worth queueing for. */
export const READ_PASS_MS = 1_000;

/** Runs one store command, or resolves `undefined` without sending it (local mode). */
export type StoreRunner = <T>(command: () => Promise<T>) => Promise<T | undefined>;

export function fleetReads(backend: FleetBackend, memberId: string, run: StoreRunner): FleetReads {
  return {
    readOrClaim: (key, claimMs) => run(() => backend.readOrClaim(key, memberId, claimMs)),
    publish: (key, text, ttlMs) => void run(() => backend.publishRead(key, memberId, text, ttlMs)),
    release: (key) => void run(() => backend.releaseRead(key, memberId, READ_PASS_MS)),
  };
}
