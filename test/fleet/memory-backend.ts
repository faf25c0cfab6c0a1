import { TokenBucket } from '../../src/admission/token-bucket.js';
import { createSeededRandom, type Clock } from '../../src/clock.js';
import type { FleetBackend, ReceivedFact } from '../../src/fleet/backend.js';
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
    take: (key, requestsPerSecond, burstCapacity, want, startEmpty, restart) =>
      op('take', () => {
        const now = clock.now();
        let bucket = buckets.get(key);
        if (!bucket || restart) buckets.set(key, (bucket = new TokenBucket(requestsPerSecond, burstCapacity, now, startEmpty ? 0 : burstCapacity)));
        let granted = 0;
        while (granted < want && bucket.tryTake(now)) granted++;
        const missing = Math.min(want, burstCapacity) - bucket.available(now);
        return { granted, waitMs: granted > 0 ? 0 : Math.ceil(missing / bucket.tokensPerMs) };
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
