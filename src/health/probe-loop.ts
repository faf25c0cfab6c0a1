/**
 * The bench loop: one unref'd timer that probes the backends that want it. Endpoint entries
 * sharing a backend (same URL and headers) are probed once for all of them (PATH dedups
 * health checks per backend); at most one probe per backend is in flight; a probe is
 * skipped when the endpoint has no token to spare. The loop sleeps (no timer) while nothing
 * wants probing and is woken by {@link ProbeLoop.poke}. `close()` stops it at once.
 */
import type { Clock, Random, TimerHandle } from '../clock.js';
import { nextProbeDelayMs, probeDelayMs, READMIT_AFTER_GOOD_PROBES } from './probe-rules.js';

/** Why an endpoint is probed. */
export type ProbeReason = 'out-of-rotation' | 'lagging' | 'reference' | 'aged' | 'all';

/** One probe's result as the host reports it. */
export type ProbeResult = { readonly ok: true } | { readonly ok: false } | { readonly skipped: true };

export interface ProbeLoopHost {
  /** Why endpoint `index` wants a probe now, or undefined. */
  wants(index: number, nowMs: number): ProbeReason | undefined;
  /** Sends one probe through endpoint `index` (it already checked for a spare token: skipped otherwise). */
  probe(index: number, reason: ProbeReason, backend: readonly number[], goodInARow: number): Promise<ProbeResult>;
  /** Endpoints to probe along with `index` (the tip's endpoint, so a lagging one is judged against a fresh tip). */
  companions(index: number, nowMs: number): readonly number[];
  /** Good probes in a row reached the readmission rule for this backend's endpoints. */
  readmit(backend: readonly number[], nowMs: number): void;
  /** Other work on the same loop (chain re-checks): run what is due, return when it is next due. */
  housekeeping(nowMs: number): number;
}

interface Backend {
  readonly endpoints: readonly number[];
  nextAtMs: number | undefined;
  inFlight: boolean;
  /** Good probes in a row while out of rotation (the readmission rule counts only those). */
  goodInARow: number;
  /** Why the probe in flight was sent. */
  reason: ProbeReason | undefined;
}

export class ProbeLoop {
  readonly #clock: Clock;
  readonly #random: Random;
  readonly #intervalMs: number;
  readonly #backends: Backend[];
  readonly #backendOf: Backend[] = [];
  readonly #host: ProbeLoopHost;
  #timer: TimerHandle | undefined;
  #timerAtMs = Number.POSITIVE_INFINITY;
  #closed = false;

  /** `backends`: endpoint indices grouped by backend. */
  constructor(clock: Clock, random: Random, intervalMs: number, backends: readonly (readonly number[])[], host: ProbeLoopHost) {
    this.#clock = clock;
    this.#random = random;
    this.#intervalMs = intervalMs;
    this.#host = host;
    this.#backends = backends.map((endpoints) => ({ endpoints, nextAtMs: undefined, inFlight: false, goodInARow: 0, reason: undefined }));
    for (const backend of this.#backends) for (const index of backend.endpoints) this.#backendOf[index] = backend;
  }

  /** Something may want probing now (an endpoint left rotation): plan the next tick. */
  poke(): void {
    if (this.#closed) return;
    this.#tick(false);
  }

  close(): void {
    this.#closed = true;
    this.#timer?.cancel();
    this.#timer = undefined;
  }

  /** True while a timer is armed (tests and snapshots). */
  get armed(): boolean {
    return this.#timer !== undefined;
  }

  #tick(fromTimer: boolean): void {
    if (fromTimer) {
      this.#timer = undefined;
      this.#timerAtMs = Number.POSITIVE_INFINITY;
    }
    const now = this.#clock.now();
    let next = this.#host.housekeeping(now);
    for (const backend of this.#backends) {
      const wanted = this.#wanted(backend, now);
      if (wanted === undefined) {
        backend.nextAtMs = undefined;
        backend.goodInARow = 0;
        continue;
      }
      // A backend that just left rotation waits one interval: it has only just failed.
      backend.nextAtMs ??= now + probeDelayMs(this.#intervalMs, this.#random);
      if (now >= backend.nextAtMs && !backend.inFlight) {
        backend.nextAtMs = now + probeDelayMs(this.#intervalMs, this.#random);
        this.#send(backend, wanted.index, wanted.reason);
        if (wanted.reason === 'lagging') {
          for (const index of this.#host.companions(wanted.index, now)) {
            const companion = this.#backendOf[index];
            if (companion !== undefined && !companion.inFlight) this.#send(companion, index, 'reference');
          }
        }
      }
      if (!backend.inFlight) next = Math.min(next, backend.nextAtMs);
    }
    this.#arm(next, now);
  }

  #wanted(backend: Backend, nowMs: number): { index: number; reason: ProbeReason } | undefined {
    for (const index of backend.endpoints) {
      const reason = this.#host.wants(index, nowMs);
      if (reason !== undefined) return { index, reason };
    }
    return undefined;
  }

  #send(backend: Backend, index: number, reason: ProbeReason): void {
    backend.inFlight = true;
    backend.reason = reason;
    void this.#host.probe(index, reason, backend.endpoints, backend.goodInARow).then(
      (result) => this.#done(backend, result),
      () => this.#done(backend, { ok: false }),
    );
  }

  #done(backend: Backend, result: ProbeResult): void {
    backend.inFlight = false;
    if (this.#closed) return;
    const now = this.#clock.now();
    if ('skipped' in result) {
      this.#tick(false);
      return;
    }
    const benched = backend.reason === 'out-of-rotation';
    backend.goodInARow = result.ok && benched ? backend.goodInARow + 1 : 0;
    if (backend.goodInARow >= READMIT_AFTER_GOOD_PROBES) {
      this.#host.readmit(backend.endpoints, now);
      backend.goodInARow = 0;
    }
    const wanted = this.#wanted(backend, now);
    if (wanted?.reason !== 'out-of-rotation') backend.goodInARow = 0;
    backend.nextAtMs = wanted === undefined ? undefined : now + nextProbeDelayMs(this.#intervalMs, this.#random, backend.goodInARow, true);
    this.#tick(false);
  }

  #arm(atMs: number, nowMs: number): void {
    if (!Number.isFinite(atMs)) {
      this.#timer?.cancel();
      this.#timer = undefined;
      this.#timerAtMs = Number.POSITIVE_INFINITY;
      return;
    }
    if (this.#timer !== undefined && this.#timerAtMs <= atMs) return;
    this.#timer?.cancel();
    this.#timerAtMs = atMs;
    this.#timer = this.#clock.setTimer(() => this.#tick(true), Math.max(0, atMs - nowMs), { unref: true });
  }
}
