import { TokenBucket } from '../../src/admission/token-bucket.js';
import { createSeededRandom, type Clock } from '../../src/clock.js';
import type { FleetBackend, ReceivedFact, SharedRate, TunerCounts } from '../../src/fleet/backend.js';
import { FleetCoordinator, type FleetCoordinatorSettings } from '../../src/fleet/coordinator.js';
import type { FleetFact } from '../../src/fleet/types.js';

/**
 * The Redis scripts' semantics in memory, on a fake clock, with faults on demand: `down`
 * (commands fail at once, like a client that is not `ready`), `hang` (commands never answer
 * until `up` again, then answer late). Counts commands, so tests can assert how few a call made.
 */
export interface MemoryBackend extends FleetBackend {
  state: 'up' | 'down' | 'hang';
  readonly commands: Record<string, number>;
  /** Sets the state; leaving `hang` answers the commands held meanwhile. */
  set(state: 'up' | 'down' | 'hang'): void;
  /** Every fact shared so far, in order, with who shared it and when (what Redis's log would hold). */
  told(): readonly { readonly from: string; readonly atMs: number; readonly fact: FleetFact }[];
}

export function createMemoryBackend(clock: Clock): MemoryBackend {
  const buckets = new Map<string, TokenBucket>();
  const members = new Map<string, number>();
  const facts = new Map<string, { fact: FleetFact; untilMs: number }>();
  const log: { id: number; atMs: number; from: string; fact: FleetFact }[] = [];
  const held: (() => void)[] = [];
  /** Shared reads (text) and claims (member id, '' for a pass), with their expiry. */
  const reads = new Map<string, { value: string; untilMs: number }>();
  const live = (key: string) => {
    const entry = reads.get(key);
    return entry !== undefined && entry.untilMs > clock.now() ? entry.value : undefined;
  };
  const commands: Record<string, number> = {};
  /** Learned budgets' tuners (`tuner-lua.ts`): the rate, the owner's lease, the counts added since the owner's last report. */
  const tuners = new Map<string, { rate: SharedRate; owner: string | undefined; ownerUntilMs: number; counts: TunerCounts }>();
  /** Credit plans' monthly totals (`tuner-lua.ts` SPEND_SCRIPT); the TTL is not modelled. */
  const spent = new Map<string, number>();
  const NONE: TunerCounts = { admitted: 0, refused: 0, rateLimited: 0, undelayed: 0, allowedRps: 0 };

  const op = <T>(name: string, run: () => T): Promise<T> => {
    commands[name] = (commands[name] ?? 0) + 1;
    if (backend.state === 'down') return Promise.reject(new Error('down'));
    if (backend.state === 'hang') return new Promise<T>((resolve) => held.push(() => resolve(run())));
    return Promise.resolve().then(run);
  };

  const backend: MemoryBackend = {
    state: 'up',
    commands,
    set(state) {
      backend.state = state;
      if (state !== 'hang') for (const answer of held.splice(0)) answer();
    },
    told: () => log.map(({ from, atMs, fact }) => ({ from, atMs, fact })),
    ready: () => backend.state !== 'down',
    take: (key, requestsPerSecond, burstCapacity, want, startEmpty, restart, learned) =>
      op('take', () => {
        const now = clock.now();
        const rate = learned ? tuners.get(key)?.rate.rateRps : undefined;
        if (rate !== undefined) [requestsPerSecond, burstCapacity] = [rate, Math.max(1, rate)];
        let bucket = buckets.get(key);
        // The tuner moved the rate: the bucket follows, keeping what it held (up to the new burst).
        if (bucket && !restart && bucket.tokensPerMs !== requestsPerSecond / 1000) buckets.set(key, (bucket = new TokenBucket(requestsPerSecond, burstCapacity, now, Math.min(burstCapacity, bucket.available(now)))));
        if (!bucket || restart) buckets.set(key, (bucket = new TokenBucket(requestsPerSecond, burstCapacity, now, startEmpty ? 0 : burstCapacity)));
        let granted = 0;
        while (granted < want && bucket.tryTake(now)) granted++;
        const missing = Math.min(want, burstCapacity) - bucket.available(now);
        return { granted, waitMs: granted > 0 ? 0 : Math.ceil(missing / bucket.tokensPerMs) };
      }),
    tune: (key, tunerId, counts, start, leaseMs, release) =>
      op('tune', () => {
        const now = clock.now();
        let tuner = tuners.get(key);
        if (!tuner) tuners.set(key, (tuner = { rate: start, owner: undefined, ownerUntilMs: 0, counts: NONE }));
        const sum = tuner.counts;
        tuner.counts = {
          admitted: sum.admitted + counts.admitted,
          refused: sum.refused + counts.refused,
          rateLimited: sum.rateLimited + counts.rateLimited,
          undelayed: sum.undelayed + counts.undelayed,
          allowedRps: counts.allowedRps > 0 ? counts.allowedRps : sum.allowedRps,
        };
        if (release) {
          if (tuner.owner === tunerId) tuner.owner = undefined;
          return { rate: tuner.rate, owner: false, counts: undefined };
        }
        if (tuner.owner !== undefined && tuner.owner !== tunerId && tuner.ownerUntilMs > now) return { rate: tuner.rate, owner: false, counts: undefined };
        tuner.owner = tunerId;
        tuner.ownerUntilMs = now + leaseMs;
        const drained = tuner.counts;
        tuner.counts = NONE;
        return { rate: tuner.rate, owner: true, counts: drained };
      }),
    publishRate: (key, tunerId, rate) =>
      op('publishRate', () => {
        const tuner = tuners.get(key);
        if (tuner?.owner !== tunerId) return false;
        tuner.rate = rate;
        return true;
      }),
    spend: (key, credits) =>
      op('spend', () => {
        const before = spent.get(key) ?? 0;
        const after = before + Math.max(0, credits);
        spent.set(key, after);
        return { before, after };
      }),
    heartbeat: (memberId, ttlMs) =>
      op('heartbeat', () => {
        const now = clock.now();
        members.set(memberId, now + ttlMs);
        for (const [id, until] of members) if (until <= now) members.delete(id);
        return members.size;
      }),
    share: (memberId, fact) =>
      op('share', () => {
        const now = clock.now();
        const id = `${fact.topic}:${fact.key}`;
        const stored = facts.get(id);
        if (!stored || stored.untilMs - now < fact.ttlMs) facts.set(id, { fact, untilMs: now + fact.ttlMs });
        log.push({ id: log.length + 1, atMs: now, from: memberId, fact });
      }),
    poll: (cursor) =>
      op('poll', () => {
        const now = clock.now();
        if (cursor === '') return { cursor: String(log.length), facts: [] };
        const after = Number(cursor);
        const received: ReceivedFact[] = log
          .filter((entry) => entry.id > after && entry.fact.ttlMs - (now - entry.atMs) > 0)
          .map((entry) => ({ from: entry.from, fact: { ...entry.fact, ttlMs: entry.fact.ttlMs - (now - entry.atMs) } }));
        return { cursor: String(log.length), facts: received };
      }),
    recall: (keys) =>
      op('recall', () => {
        const now = clock.now();
        return keys.flatMap(({ topic, key }) => {
          const stored = facts.get(`${topic}:${key}`);
          return stored && stored.untilMs > now ? [{ ...stored.fact, ttlMs: stored.untilMs - now }] : [];
        });
      }),
    readOrClaim: (key, memberId, claimMs) =>
      op('readOrClaim', () => {
        const text = live(`read:${key}`);
        if (text !== undefined) return { text };
        if (claimMs === 0) return { state: 'pass' as const };
        const claim = live(`claim:${key}`);
        if (claim === undefined) reads.set(`claim:${key}`, { value: memberId, untilMs: clock.now() + claimMs });
        return { state: claim === undefined ? ('claimed' as const) : claim === '' ? ('pass' as const) : ('busy' as const) };
      }),
    publishRead: (key, memberId, text, ttlMs) =>
      op('publishRead', () => {
        reads.set(`read:${key}`, { value: text, untilMs: clock.now() + ttlMs });
        if (live(`claim:${key}`) === memberId) reads.delete(`claim:${key}`);
      }),
    releaseRead: (key, memberId, passMs) =>
      op('releaseRead', () => {
        if (live(`claim:${key}`) === memberId) reads.set(`claim:${key}`, { value: '', untilMs: clock.now() + passMs });
      }),
    leave: (memberId) =>
      op('leave', () => {
        members.delete(memberId);
      }),
  };
  return backend;
}

export function memoryFleet(backend: FleetBackend, clock: Clock, settings: Partial<FleetCoordinatorSettings> & { memberId: string }): FleetCoordinator {
  return new FleetCoordinator(backend, {
    clock,
    random: createSeededRandom(Number.parseInt(settings.memberId, 36)),
    commandTimeoutMs: 50,
    heartbeatMs: 1_000,
    pollIntervalMs: 50,
    leaseMs: 100,
    expectedMembers: 4,
    ...settings,
  });
}
