/**
 * The demo's live slot subscriptions: `onSlot` through the demo's pool on its WebSocket
 * nodes, read as a caller reads them. Per endpoint it counts the subscriptions that
 * rebound away from it and the gaps (and slots) missed while they were on it; overall,
 * every slot delivered twice or skipped without a `gap` item (both must stay 0).
 */
import { isTransportError } from '../errors/transport-error.js';
import type { SolanaClient } from '../solana/client.js';
import type { Subscription } from '../subscriptions/types.js';
import type { SlotNotification } from '../subscriptions/solana-helpers.js';

/** Per endpoint, what the demo's slot subscriptions saw of it. */
export interface DemoSubscriptionTally {
  /** Subscriptions on it when the workload ended. */
  readonly subscriptions: number;
  /** `rebind` items that moved a subscription away from it. */
  readonly reboundAway: number;
  /** `gap` items for slots missed while the subscription was on it (it went silent or dropped). */
  readonly gaps: number;
  /** Slots those gaps name (`to - from + 1`, summed). */
  readonly missedSlots: number;
}

/** The demo's slot subscriptions as a caller observed them. */
export interface DemoSubscriptionTotals {
  readonly subscriptions: number;
  readonly notifications: number;
  readonly rebinds: number;
  readonly gaps: number;
  readonly missedSlots: number;
  /** Why they moved: `silent`, `closed`, `left-rotation`, … with counts. */
  readonly rebindReasons: Readonly<Record<string, number>>;
  /** Notifications whose slot was not above the last one delivered (must be 0). */
  readonly duplicateSlots: number;
  /** Slots skipped with no `gap` item saying so (must be 0). */
  readonly unannouncedSkips: number;
  /** Set when the subscriptions could not open (then every count is 0): the error code. */
  readonly error: string | null;
}

interface Counter {
  subscriptions: number;
  reboundAway: number;
  gaps: number;
  missedSlots: number;
}

export interface SlotWatch {
  /** Per endpoint id (only endpoints the subscriptions touched). */
  tally(endpointId: string): DemoSubscriptionTally | undefined;
  /** Counts endpoints' open subscriptions now (call when the workload ends), then closes every subscription and waits for its reader. */
  finish(): Promise<DemoSubscriptionTotals>;
}

/** Opens `count` slot subscriptions (resolves once a node confirmed each) and reads them until `finish()`. */
export async function watchSlots(sol: SolanaClient, count: number, signal: AbortSignal | undefined): Promise<SlotWatch> {
  const counters = new Map<string, Counter>();
  const counter = (endpointId: string) => {
    let c = counters.get(endpointId);
    if (c === undefined) counters.set(endpointId, (c = { subscriptions: 0, reboundAway: 0, gaps: 0, missedSlots: 0 }));
    return c;
  };
  const reasons: Record<string, number> = {};
  let notifications = 0;
  let rebinds = 0;
  let duplicateSlots = 0;
  let unannouncedSkips = 0;
  let error: string | null = null;

  const read = async (sub: Subscription<SlotNotification>) => {
    let last: bigint | undefined;
    // Slots a `gap` item announced: the next notification may start past them.
    let announcedUpTo: bigint | undefined;
    // Where the missed slots were lost: the endpoint the subscription just left (or is on).
    let lostOn = sub.endpointId;
    for await (const item of sub) {
      if (item.kind === 'rebind') {
        rebinds++;
        reasons[item.reason] = (reasons[item.reason] ?? 0) + 1;
        counter(item.fromEndpointId).reboundAway++;
        lostOn = item.fromEndpointId;
      } else if (item.kind === 'gap') {
        const c = counter(lostOn);
        c.gaps++;
        c.missedSlots += Number(item.to - item.from + 1n);
        announcedUpTo = item.to;
      } else if (item.kind === 'notification') {
        notifications++;
        const slot = item.value.slot;
        if (last !== undefined && slot <= last) duplicateSlots++;
        else if (last !== undefined && slot > last + 1n && !(announcedUpTo !== undefined && announcedUpTo >= slot - 1n)) unannouncedSkips++;
        if (last === undefined || slot > last) last = slot;
        lostOn = item.endpointId;
      }
    }
  };

  const subs: Subscription<SlotNotification>[] = [];
  const readers: Promise<void>[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const sub = await sol.onSlot({ signal, timeoutMs: 5_000 });
      subs.push(sub);
      // The iterator ends only when closed; a read error ends this reader, not the demo.
      readers.push(read(sub).catch(() => undefined));
    }
  } catch (cause) {
    error = isTransportError(cause) ? cause.code : 'UNEXPECTED';
  }

  return {
    tally: (endpointId) => counters.get(endpointId),
    async finish() {
      for (const sub of subs) if (!sub.closed) counter(sub.endpointId).subscriptions++;
      await Promise.all(subs.map((sub) => sub.close()));
      await Promise.all(readers);
      const sum = (key: keyof Counter) => [...counters.values()].reduce((n, c) => n + c[key], 0);
      return {
        subscriptions: subs.length,
        notifications,
        rebinds,
        gaps: sum('gaps'),
        missedSlots: sum('missedSlots'),
        rebindReasons: reasons,
        duplicateSlots,
        unannouncedSkips,
        error,
      };
    },
  };
}
