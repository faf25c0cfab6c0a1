/**
 * Fault injection for the fixture server: the behaviour types, and the engine that decides,
 * per HTTP request, which behaviours apply (deterministically, from the server's injected
 * clock and random).
 */
import type { Clock, Random } from '../clock.js';

/** When a behaviour applies. Both set: it applies only on every Nth call AND with the probability. */
export interface BehaviourTrigger {
  /**
   * Chance in [0, 1] that the behaviour applies to a call it matches, drawn from the
   * server's injected `random` (so a seeded random gives a reproducible sequence).
   * @default 1
   */
  readonly probability?: number;
  /**
   * Applies only to the Nth, 2Nth, 3Nth… call this behaviour matches, counted since the
   * behaviours were set or the server was `reset()`. `1` means every call.
   */
  readonly everyNth?: number;
}

/** Waits before answering (whatever the answer), on the server's clock. Delays of several latency behaviours add up. */
export type LatencyBehaviour = BehaviourTrigger & { readonly type: 'latency' } & (
    | { /** Fixed delay, in ms. */ readonly ms: number }
    | { /** Uniform delay in [minMs, maxMs], drawn from the server's random. */ readonly minMs: number; readonly maxMs: number }
  );

/** HTTP 429, every time the trigger fires, or only above a request rate. */
export interface RateLimitBehaviour extends BehaviourTrigger {
  readonly type: 'rate-limit';
  /**
   * Only answer 429 when this many calls were already let through in the last 1000 ms
   * (a sliding window on the server's clock; calls answered 429 do not count).
   * Unset: the trigger alone decides.
   */
  readonly requestsPerSecond?: number;
  /** The delay `Retry-After` announces, in seconds. @default 1 */
  readonly retryAfterSeconds?: number;
  /**
   * `'seconds'` writes delta-seconds; `'http-date'` writes the wall-clock instant
   * `clock.wallNow() + retryAfterSeconds` as an HTTP-date (and a matching `Date` header);
   * `'none'` sends no `Retry-After`.
   * @default 'seconds'
   */
  readonly retryAfter?: 'seconds' | 'http-date' | 'none';
  /** `'json'`: a JSON-RPC error `{ code: 429 }` with the request id; `'text'`: `Too Many Requests`. @default 'json' */
  readonly body?: 'json' | 'text';
}

/** An HTTP error status (5xx by default) with an nginx-style HTML page or a JSON-RPC -32603 body. */
export interface HttpErrorBehaviour extends BehaviourTrigger {
  readonly type: 'http-error';
  /** @default 503 */
  readonly status?: number;
  /** @default 'html' */
  readonly body?: 'html' | 'json';
}

/** An HTML page with status 200 (a CDN or captive-portal page where JSON was expected). */
export interface HtmlBehaviour extends BehaviourTrigger {
  readonly type: 'html';
}

/** The normal answer, cut short (with a matching `content-length`, so the response itself completes). */
export interface TruncateBehaviour extends BehaviourTrigger {
  readonly type: 'truncate';
  /** Share of the body's characters kept, in [0, 1). @default 0.5 */
  readonly keepRatio?: number;
}

/**
 * Reads the whole request, counts it as received and processed, then resets the connection
 * (TCP RST) instead of answering: the client cannot know whether the call took effect.
 */
export interface ResetBehaviour extends BehaviourTrigger {
  readonly type: 'reset';
}

/** Reads the whole request, then closes the connection (FIN) without answering. */
export interface CloseBehaviour extends BehaviourTrigger {
  readonly type: 'close';
}

/** Reads the whole request and never answers; `server.close()` ends the connection. */
export interface HangBehaviour extends BehaviourTrigger {
  readonly type: 'hang';
}

/**
 * Claims another chain: Solana `getGenesisHash` answers `solanaGenesisHash`; EVM
 * `eth_getBlockByNumber` for block `0x0` answers a block whose `hash` is `evmGenesisHash`;
 * EVM `eth_chainId` answers `evmChainId` when it is set. Other methods are unaffected.
 * Works without a fixture for those methods.
 */
export interface WrongGenesisBehaviour extends BehaviourTrigger {
  readonly type: 'wrong-genesis';
  /** @default the Solana devnet genesis hash */
  readonly solanaGenesisHash?: string;
  /** @default `0xc56b…e07b`, the genesis hash of `anvil --timestamp 1700000000` */
  readonly evmGenesisHash?: string;
  /**
   * The chain id `eth_chainId` claims, answered as a hex quantity (`31337` → `"0x7a69"`),
   * even without an `eth_chainId` fixture. An integer in [0, 2^53 − 1].
   * @default unset: `eth_chainId` is answered normally (from its fixture)
   */
  readonly evmChainId?: number;
}

/**
 * Pretends to be `slots` behind: Solana `getSlot` and `getBlockHeight` results and every
 * `result.context.slot` are lowered by `slots`, EVM `eth_blockNumber` by `slots` blocks.
 * Solana `getHealth` answers `-32005 "Node is behind by N slots"` with
 * `data: { numSlotsBehind: N }` when `slots > unhealthyAboveSlots`, like an Agave node,
 * whose default health-check slot distance is 128.
 */
export interface LagBehaviour extends BehaviourTrigger {
  readonly type: 'lag';
  readonly slots: number;
  /** @default 128 */
  readonly unhealthyAboveSlots?: number;
}

/** One way the fixture server can misbehave. */
export type FixtureServerBehaviour =
  | LatencyBehaviour
  | RateLimitBehaviour
  | HttpErrorBehaviour
  | HtmlBehaviour
  | TruncateBehaviour
  | ResetBehaviour
  | CloseBehaviour
  | HangBehaviour
  | WrongGenesisBehaviour
  | LagBehaviour;

/** Behaviours that replace the answer (the first one whose trigger fires wins). */
export type TerminalBehaviour = RateLimitBehaviour | HttpErrorBehaviour | HtmlBehaviour | TruncateBehaviour | ResetBehaviour | CloseBehaviour | HangBehaviour;
/** Behaviours that rewrite the normal answer of some methods. */
export type TransformBehaviour = WrongGenesisBehaviour | LagBehaviour;

/**
 * Behaviours per method; `'*'` applies to every call. A plain array means `{ '*': array }`.
 * A call gets its method's behaviours first, then the `'*'` ones.
 */
export type FixtureServerBehaviours =
  | readonly FixtureServerBehaviour[]
  | Readonly<Record<string, readonly FixtureServerBehaviour[]>>;

/** What the engine decided for one HTTP request. */
export interface BehaviourPlan {
  /** Total delay before answering, in ms. */
  readonly delayMs: number;
  /** The behaviour replacing the answer, if any. */
  readonly terminal?: TerminalBehaviour;
  /** Transforms to apply to the normal answers, in order. */
  readonly transforms: readonly TransformBehaviour[];
}

interface Entry {
  readonly behaviour: FixtureServerBehaviour;
  /** Calls matched so far (for `everyNth`). */
  seen: number;
  /** Instants (clock ms) of calls let through, for `requestsPerSecond`. */
  window: number[];
}

const WINDOW_MS = 1000;

function assertValid(behaviour: FixtureServerBehaviour): void {
  const fail = (what: string) => {
    throw new RangeError(`fixture server behaviour "${behaviour.type}": ${what}`);
  };
  const { probability, everyNth } = behaviour;
  if (probability !== undefined && !(probability >= 0 && probability <= 1)) fail('probability must be in [0, 1]');
  if (everyNth !== undefined && !(Number.isInteger(everyNth) && everyNth >= 1)) fail('everyNth must be an integer ≥ 1');
  if (behaviour.type === 'latency') {
    const ok = 'ms' in behaviour ? behaviour.ms >= 0 : behaviour.minMs >= 0 && behaviour.maxMs >= behaviour.minMs;
    if (!ok) fail('needs ms ≥ 0, or 0 ≤ minMs ≤ maxMs');
  }
  if (behaviour.type === 'rate-limit') {
    if (behaviour.requestsPerSecond !== undefined && !(behaviour.requestsPerSecond >= 0)) fail('requestsPerSecond must be ≥ 0');
    if (behaviour.retryAfterSeconds !== undefined && !(behaviour.retryAfterSeconds >= 0)) fail('retryAfterSeconds must be ≥ 0');
  }
  if (behaviour.type === 'truncate' && behaviour.keepRatio !== undefined && !(behaviour.keepRatio >= 0 && behaviour.keepRatio < 1)) {
    fail('keepRatio must be in [0, 1)');
  }
  if (behaviour.type === 'lag' && !(Number.isInteger(behaviour.slots) && behaviour.slots >= 0)) fail('slots must be an integer ≥ 0');
  if (behaviour.type === 'wrong-genesis' && behaviour.evmChainId !== undefined && !(Number.isSafeInteger(behaviour.evmChainId) && behaviour.evmChainId >= 0)) {
    fail('evmChainId must be an integer in [0, 2^53 − 1]');
  }
}

/** Decides which behaviours apply to each request; state lives here so `reset()` can clear it. */
export interface BehaviourEngine {
  set(behaviours: FixtureServerBehaviours): void;
  /** Clears the `everyNth` counters and rate windows (the behaviours stay). */
  reset(): void;
  /** The plan for one HTTP request carrying calls of `methods` (one per call; batches many). */
  plan(methods: readonly string[]): BehaviourPlan;
}

export function createBehaviourEngine(clock: Clock, random: Random): BehaviourEngine {
  let byMethod = new Map<string, Entry[]>();

  const fires = (entry: Entry): boolean => {
    const { everyNth, probability } = entry.behaviour;
    entry.seen++;
    if (everyNth !== undefined && entry.seen % everyNth !== 0) return false;
    // Drawn only when a probability is set, so adding one behaviour never shifts another's draws.
    if (probability !== undefined && !(random() < probability)) return false;
    return true;
  };

  /** A rate limit with `requestsPerSecond` fires only when its window is full; calls let through are recorded. */
  const overRate = (entry: Entry, behaviour: RateLimitBehaviour, triggered: boolean): boolean => {
    if (behaviour.requestsPerSecond === undefined) return triggered;
    const now = clock.now();
    while (entry.window.length > 0 && (entry.window[0] ?? 0) <= now - WINDOW_MS) entry.window.shift();
    if (triggered && entry.window.length >= behaviour.requestsPerSecond) return true;
    entry.window.push(now);
    return false;
  };

  return {
    set(behaviours) {
      const map: Readonly<Record<string, readonly FixtureServerBehaviour[]>> = Array.isArray(behaviours)
        ? { '*': behaviours as readonly FixtureServerBehaviour[] }
        : (behaviours as Readonly<Record<string, readonly FixtureServerBehaviour[]>>);
      const next = new Map<string, Entry[]>();
      for (const [method, list] of Object.entries(map)) {
        for (const behaviour of list) assertValid(behaviour);
        next.set(method, list.map((behaviour) => ({ behaviour, seen: 0, window: [] })));
      }
      byMethod = next;
    },
    reset() {
      for (const entries of byMethod.values()) {
        for (const entry of entries) {
          entry.seen = 0;
          entry.window = [];
        }
      }
    },
    plan(methods) {
      const entries: Entry[] = [];
      for (const method of new Set(methods)) entries.push(...(byMethod.get(method) ?? []));
      entries.push(...(byMethod.get('*') ?? []));
      let delayMs = 0;
      let terminal: TerminalBehaviour | undefined;
      const transforms: TransformBehaviour[] = [];
      // Every entry is evaluated, so each one's "every Nth call" counts every call it matches.
      for (const entry of entries) {
        const behaviour = entry.behaviour;
        let triggered = fires(entry);
        if (behaviour.type === 'rate-limit') triggered = overRate(entry, behaviour, triggered);
        if (!triggered) continue;
        switch (behaviour.type) {
          case 'latency':
            delayMs += 'ms' in behaviour ? behaviour.ms : behaviour.minMs + random() * (behaviour.maxMs - behaviour.minMs);
            break;
          case 'wrong-genesis':
          case 'lag':
            transforms.push(behaviour);
            break;
          default:
            terminal ??= behaviour;
        }
      }
      return terminal === undefined ? { delayMs, transforms } : { delayMs, terminal, transforms };
    },
  };
}
