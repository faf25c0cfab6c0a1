/**
 * The bench loop's side of endpoint health: which endpoints want a probe and why, which
 * companion a lagging one is judged with, and one probe's exchange, verdict and event.
 * `endpoint-health.ts` hands over what a probe reads and changes ({@link ProbeParts}).
 */
import type { RoleState } from '../admission/role-state.js';
import type { Clock } from '../clock.js';
import type { NormalizedEndpoint } from '../config/normalize.js';
import type { ClassifiedFailure } from '../http/outcome.js';
import type { HeadQuantity, ResolvedHealth } from '../health/config.js';
import type { HeadBook } from '../health/head-book.js';
import { headOfAnswer } from '../health/head-of.js';
import type { ProbeReason, ProbeResult } from '../health/probe-loop.js';
import { hasSpareCapacity, otherQuantity, PROBE_METHOD, READMIT_AFTER_GOOD_PROBES } from '../health/probe-rules.js';
import { createRequestBody } from '../jsonrpc/envelope.js';
import type { ChainGuard } from './chain-guard.js';
import { MAX_TIP_AGE_MS, type EndpointHealthHost, type Probe } from './endpoint-health-types.js';
import type { PoolEvents } from '../api/events.js';
import type { PoolHealth } from './pool-health.js';

/**
 * A lagging (or `probeAll`) endpoint is not probed while another process of the fleet
 * observed its head less than this share of `probeIntervalMs` ago (the jitter is ±10 %):
 * one probe per interval serves the whole fleet.
 */
const REMOTE_HEAD_SPARES_PROBE = 0.9;

export interface ProbeParts {
  readonly settings: ResolvedHealth;
  readonly endpoints: readonly NormalizedEndpoint[];
  readonly rolesOf: readonly (readonly RoleState[])[];
  readonly heads: HeadBook;
  readonly inner: PoolHealth;
  readonly probes: Probe[];
  /** When the last head adopted from the fleet was observed, per endpoint. */
  readonly remoteAtMs: readonly number[];
  readonly events: PoolEvents;
  readonly clock: Clock;
  readonly host: EndpointHealthHost;
  readonly chainGuard: ChainGuard | undefined;
  observe(index: number, quantity: HeadQuantity, raw: number | bigint | string, nowMs: number): void;
  observeUnhealthy(index: number, failure: ClassifiedFailure): void;
}

/** The probe loop's host over `p`. */
export function createProbeHost(p: ProbeParts) {
  const firstRole = (index: number): RoleState => p.rolesOf[index]![0]!;

  const wants = (index: number, nowMs: number): ProbeReason | undefined => {
    const roles = p.rolesOf[index]!;
    if (roles.length === 0 || roles.every((role) => role.disabled)) return undefined;
    if (p.heads.isLagging(index)) return 'lagging';
    // Benched, behind an open breaker — or demoted below the good band, where it gets no
    // traffic while a good peer can admit (the "86 requests, score 50, to the end").
    if (roles.some((role) => !role.disabled && !role.chainPending && (p.inner.isExcluded(role, nowMs) || role.band > 0))) return 'out-of-rotation';
    if (p.heads.isAged(index)) return 'aged';
    return p.settings.probeAll ? 'all' : undefined;
  };

  /** A lagging endpoint is judged against the tip: its probe takes the tip's endpoint along when the tip's head is not fresh. */
  const companions = (index: number, nowMs: number): readonly number[] => {
    const quantity = p.heads.record(index)?.quantity;
    const tip = quantity === undefined ? undefined : p.heads.tip(quantity);
    if (tip === undefined || tip.index === index || nowMs - tip.atMs <= MAX_TIP_AGE_MS) return [];
    return [tip.index];
  };

  const probe = async (index: number, reason: ProbeReason, backend: readonly number[], goodInARow: number): Promise<ProbeResult> => {
    const roles = p.rolesOf[index]!;
    const role = roles.find((r) => !r.disabled && r.settings.kind === 'read') ?? roles.find((r) => !r.disabled)!;
    const endpointIds = backend.map((i) => p.endpoints[i]!.id);
    const probeOf = p.probes[index]!;
    const quantity = p.heads.record(index)?.quantity ?? probeOf.quantity;
    const method = PROBE_METHOD[quantity];
    const base = { endpointId: role.endpointId, endpointIds, method, reason };
    const now = p.clock.now();
    // Another process of the fleet observed it recently (a probe or an answer): its head serves here too.
    const spared = (reason === 'lagging' || reason === 'all') && now - p.remoteAtMs[index]! < REMOTE_HEAD_SPARES_PROBE * p.settings.probeIntervalMs;
    if (spared || !hasSpareCapacity(role.bucket?.available(now), p.host.waiting(role.settings.kind), role.load.inFlight, role.load.max)) {
      p.events.emit('probe', { atMs: now, ...base, outcome: 'skipped' });
      return { skipped: true };
    }
    const { outcome, latencyMs } = await p.host.ask(role, { method, body: createRequestBody(method, []) });
    if (p.host.closed()) return { ok: false };
    const atMs = p.clock.now();
    if (!outcome.ok) {
      // A node of the other family: no penalty, the next probe asks the other method.
      if (outcome.rpcCode === -32601) probeOf.quantity = otherQuantity(quantity);
      p.inner.recordProbe(backend.map((i) => firstRole(i)), outcome);
      if (outcome.rpcCode === -32005) p.observeUnhealthy(index, outcome);
      p.events.emit('probe', { atMs, ...base, outcome: 'failed', latencyMs, detail: outcome.detail, ...(reason === 'out-of-rotation' ? { goodInARow: 0 } : {}) });
      return { ok: false };
    }
    const head = headOfAnswer(method, [], outcome.result);
    p.inner.recordProbe(backend.map((i) => firstRole(i)), undefined);
    if (head !== undefined) for (const i of backend) p.observe(i, head.quantity, head.raw, atMs);
    const benched = reason === 'out-of-rotation';
    const readmits = benched && goodInARow + 1 >= READMIT_AFTER_GOOD_PROBES;
    p.events.emit('probe', {
      atMs,
      ...base,
      outcome: 'ok',
      latencyMs,
      ...(head === undefined ? {} : { head: BigInt(head.raw) }),
      ...(benched ? { goodInARow: goodInARow + 1, readmitted: readmits } : {}),
    });
    return { ok: true };
  };

  return {
      wants: (index: number, nowMs: number) => wants(index, nowMs),
      probe: (index: number, reason: ProbeReason, backend: readonly number[], goodInARow: number) => probe(index, reason, backend, goodInARow),
      companions: (index: number, nowMs: number) => companions(index, nowMs),
      readmit: (backend: readonly number[]) => {
        p.inner.readmit(backend.map((index) => firstRole(index)));
        p.host.wake();
      },
      housekeeping: (nowMs: number) => p.chainGuard?.housekeeping(nowMs, p.settings.chainRecheckMs) ?? Number.POSITIVE_INFINITY,
    };
}
