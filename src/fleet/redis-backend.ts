/**
 * {@link FleetBackend} over a caller-owned Redis client (ioredis, or anything with the same
 * `evalsha`/`eval`/`status`). Scripts are sent by SHA and loaded on `NOSCRIPT`. Keys:
 * `sturdy-rpc:{<namespace>}:<kind>:<hash>` — a namespace per deployment, hashes made by the
 * pool (never a URL).
 */
import { createHash } from 'node:crypto';
import type { LearnedRateReason } from '../admission/learned-rate.js';
import type { FleetBackend, FleetGrant, ReceivedFact, SharedRate, TuneAnswer } from './backend.js';
import { HEARTBEAT_SCRIPT, POLL_SCRIPT, RECALL_SCRIPT, SHARE_SCRIPT, TAKE_SCRIPT } from './lua.js';
import { PUBLISH_RATE_SCRIPT, SPEND_SCRIPT, TUNE_SCRIPT } from './tuner-lua.js';
import { PUBLISH_READ_SCRIPT, READ_OR_CLAIM_SCRIPT, RELEASE_READ_SCRIPT } from './read-lua.js';
import type { FleetFact, FleetTopic, SpendTotals, StoredRead } from './types.js';

/** The part of an ioredis client (`Redis` or `Cluster`) the fleet uses. */
export interface FleetRedisClient {
  /** ioredis connection status; commands are sent only while it is `ready` (never left to queue offline). */
  readonly status: string;
  evalsha(sha: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
}

/** Entries kept in the fact log (approximate trim). */
const LOG_LENGTH = 10_000;
/** Entries read per poll. */
const POLL_BATCH = 500;
const TOPICS: ReadonlySet<string> = new Set<FleetTopic>(['cooldown', 'bench', 'breaker', 'chain', 'head']);

interface Script {
  readonly text: string;
  readonly sha: string;
}

const script = (text: string): Script => ({ text, sha: createHash('sha1').update(text).digest('hex') });
const SCRIPTS = {
  take: script(TAKE_SCRIPT),
  heartbeat: script(HEARTBEAT_SCRIPT),
  share: script(SHARE_SCRIPT),
  poll: script(POLL_SCRIPT),
  recall: script(RECALL_SCRIPT),
  readOrClaim: script(READ_OR_CLAIM_SCRIPT),
  publishRead: script(PUBLISH_READ_SCRIPT),
  releaseRead: script(RELEASE_READ_SCRIPT),
  tune: script(TUNE_SCRIPT),
  publishRate: script(PUBLISH_RATE_SCRIPT),
  spend: script(SPEND_SCRIPT),
};
/** A tuner outlives an idle spell like its bucket: the learned rate is still the provider's limit tomorrow. */
const TUNER_TTL_MS = 86_400_000;
/** A month's credit spend outlives its month by a few days: a process that starts late in it still reads it. */
const SPEND_TTL_MS = 40 * 86_400_000;
const READ_STATES: ReadonlySet<string> = new Set(['claimed', 'busy', 'pass']);

export function createRedisBackend(client: FleetRedisClient, namespace: string): FleetBackend {
  const prefix = `sturdy-rpc:{${namespace}}:`;
  const bucketKey = (key: string) => `${prefix}bucket:${key}`;
  const tunerKey = (key: string) => `${prefix}tuner:${key}`;
  const creditsKey = (key: string) => `${prefix}credits:${key}`;
  const factKey = (topic: string, key: string) => `${prefix}fact:${topic}:${key}`;
  const readKey = (key: string) => `${prefix}read:${key}`;
  const claimKey = (key: string) => `${prefix}claim:${key}`;
  const membersKey = `${prefix}members`;
  const logKey = `${prefix}log`;

  const run = async (s: Script, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> => {
    try {
      return await client.evalsha(s.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!String((error as { message?: unknown })?.message ?? '').includes('NOSCRIPT')) throw error;
      return client.eval(s.text, keys.length, ...keys, ...args);
    }
  };

  return {
    ready: () => client.status === 'ready',
    async take(key, requestsPerSecond, burstCapacity, want, startEmpty, restart, learned): Promise<FleetGrant> {
      // Kept until long after the bucket would be full again: an idle fleet's bucket is full either way.
      const ttlMs = Math.max(600_000, Math.ceil((burstCapacity / requestsPerSecond) * 2000));
      const keys = learned ? [bucketKey(key), tunerKey(key)] : [bucketKey(key)];
      const reply = (await run(SCRIPTS.take, keys, [requestsPerSecond / 1000, burstCapacity, want, startEmpty ? 1 : 0, ttlMs, restart ? 1 : 0])) as [number, number];
      return { granted: Number(reply[0]), waitMs: Number(reply[1]) };
    },
    async tune(key, tunerId, counts, start, leaseMs, release): Promise<TuneAnswer> {
      const { admitted, refused, rateLimited, undelayed, allowedRps } = counts;
      const args = [tunerId, Math.ceil(leaseMs), TUNER_TTL_MS, admitted, refused, rateLimited, undelayed, allowedRps, start.rateRps, start.step, release ? 1 : 0];
      const reply = (await run(SCRIPTS.tune, [tunerKey(key)], args)) as unknown[];
      const owner = Number(reply[5]) === 1;
      return {
        rate: sharedRateOf(reply, start),
        owner,
        counts: owner ? { admitted: Number(reply[6]), refused: Number(reply[7]), rateLimited: Number(reply[8]), undelayed: Number(reply[9]), allowedRps: Number(reply[10]) || 0 } : undefined,
      };
    },
    async publishRate(key, tunerId, rate) {
      const { rateRps, step, direction, refusedAtRps, reason } = rate;
      return Number(await run(SCRIPTS.publishRate, [tunerKey(key)], [tunerId, rateRps, step, direction, refusedAtRps ?? '', reason])) === 1;
    },
    async spend(key, credits): Promise<SpendTotals> {
      const [before, after] = (await run(SCRIPTS.spend, [creditsKey(key)], [credits, SPEND_TTL_MS])) as [string, string];
      return { before: Number(before) || 0, after: Number(after) || 0 };
    },
    async heartbeat(memberId, ttlMs) {
      return Number(await run(SCRIPTS.heartbeat, [membersKey], [memberId, Math.ceil(ttlMs)]));
    },
    async share(memberId, fact) {
      const ttlMs = Math.max(1, Math.ceil(fact.ttlMs));
      await run(SCRIPTS.share, [factKey(fact.topic, fact.key), logKey], [JSON.stringify({ ...fact, ttlMs }), ttlMs, memberId, LOG_LENGTH]);
    },
    async poll(cursor) {
      const [nowMs, next, entries] = (await run(SCRIPTS.poll, [logKey], [cursor, POLL_BATCH])) as [number, string, [string, string, string][]];
      const facts: ReceivedFact[] = [];
      for (const [id, from, json] of entries) {
        const fact = parseFact(json);
        if (fact === undefined) continue;
        // The entry id starts with the server's ms at append: age the fact by the server's clock.
        const ageMs = Math.max(0, Number(nowMs) - Number(id.split('-')[0]));
        const ttlMs = fact.ttlMs - ageMs;
        if (ttlMs > 0) facts.push({ from, fact: { ...fact, ttlMs } });
      }
      return { cursor: String(next), facts };
    },
    async recall(keys) {
      if (keys.length === 0) return [];
      const rows = (await run(SCRIPTS.recall, keys.map(({ topic, key }) => factKey(topic, key)), [])) as [string, number][];
      const facts: FleetFact[] = [];
      for (const [json, ttlMs] of rows) {
        const fact = parseFact(json);
        if (fact !== undefined) facts.push({ ...fact, ttlMs: Number(ttlMs) });
      }
      return facts;
    },
    async readOrClaim(key, memberId, claimMs): Promise<StoredRead> {
      const [state, text] = (await run(SCRIPTS.readOrClaim, [readKey(key), claimKey(key)], [memberId, claimMs > 0 ? Math.max(1, Math.ceil(claimMs)) : 0])) as [string, string?];
      if (state === 'value' && typeof text === 'string') return { text };
      // Anything else (another version's reply): ask a node.
      return { state: READ_STATES.has(state) ? (state as 'claimed' | 'busy' | 'pass') : 'pass' };
    },
    async publishRead(key, memberId, text, ttlMs) {
      await run(SCRIPTS.publishRead, [readKey(key), claimKey(key)], [text, Math.max(1, Math.ceil(ttlMs)), memberId]);
    },
    async releaseRead(key, memberId, passMs) {
      await run(SCRIPTS.releaseRead, [claimKey(key)], [memberId, Math.max(1, Math.ceil(passMs))]);
    },
    async leave(memberId) {
      // ZREM through a script too: one code path, and nothing else of the client is needed.
      await client.eval(`return redis.call('ZREM', KEYS[1], ARGV[1])`, 1, membersKey, memberId);
    },
  };
}

const REASONS: ReadonlySet<string> = new Set<LearnedRateReason>(['demand', 'rate-limited', 'provider-hint']);

/** The tuner's stored rate, or `start` where a field is not one of ours (another version, or garbage). */
function sharedRateOf(reply: readonly unknown[], start: SharedRate): SharedRate {
  const rateRps = Number(reply[0]);
  if (!(rateRps > 0) || !Number.isFinite(rateRps)) return start;
  const step = Number(reply[1]);
  const direction = Number(reply[2]);
  const refusedAt = reply[3] === '' ? Number.NaN : Number(reply[3]);
  const reason = String(reply[4]);
  return {
    rateRps,
    step: step > 0 && step <= 1 ? step : start.step,
    direction: direction === 1 || direction === -1 ? direction : 0,
    refusedAtRps: refusedAt > 0 ? refusedAt : undefined,
    reason: REASONS.has(reason) ? (reason as LearnedRateReason) : 'demand',
  };
}

/** A fact from the log or a stored key, or undefined when it is not one of ours (another version, or garbage). */
function parseFact(json: string): FleetFact | undefined {
  try {
    const value = JSON.parse(json) as Partial<FleetFact>;
    if (typeof value !== 'object' || value === null) return undefined;
    if (typeof value.topic !== 'string' || !TOPICS.has(value.topic) || typeof value.key !== 'string') return undefined;
    if (typeof value.ttlMs !== 'number' || !Number.isFinite(value.ttlMs)) return undefined;
    const data = typeof value.data === 'object' && value.data !== null ? value.data : {};
    return { topic: value.topic as FleetTopic, key: value.key, ttlMs: value.ttlMs, data };
  } catch {
    return undefined;
  }
}
