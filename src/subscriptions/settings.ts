import * as z from 'zod/mini';
import type { BackoffSettings } from '../retry/backoff.js';
import type { SilenceSettings } from './silence.js';
import type { SocketFactory } from './socket.js';
import type { BackfillOption, OverflowPolicy, SubscriptionSettings } from './types.js';

export interface ResolvedSubscriptionSettings {
  readonly deriveWsUrl: boolean;
  readonly maxSubscriptionsPerSocket: number;
  readonly bufferSize: number;
  readonly bufferBytes: number;
  readonly maxFrameBytes: number;
  readonly overflow: OverflowPolicy;
  readonly pingIntervalMs: number;
  readonly pongTimeoutMs: number;
  readonly silence: SilenceSettings;
  readonly requestTimeoutMs: number;
  readonly subscribeTimeoutMs: number;
  readonly backoff: BackoffSettings;
  readonly idleSocketMs: number;
  readonly socketFactory: SocketFactory | undefined;
  readonly share: boolean;
  readonly redundancy: 1 | 2;
  /** Undefined: no backfill. */
  readonly backfill: ResolvedBackfill | undefined;
}

export interface ResolvedBackfill {
  readonly maxBlocks: number;
  readonly maxMs: number;
}

const DEFAULT_BACKFILL: ResolvedBackfill = { maxBlocks: 128, maxMs: 10_000 };

/** `backfill` of the pool or of one `subscribe()` call, over the pool's (`base`). */
export function resolveBackfill(option: BackfillOption | undefined, base: ResolvedBackfill | undefined): ResolvedBackfill | undefined {
  if (option === undefined) return base;
  if (option === false) return undefined;
  const fallback = base ?? DEFAULT_BACKFILL;
  if (option === true) return fallback;
  return { maxBlocks: option.maxBlocks ?? fallback.maxBlocks, maxMs: option.maxMs ?? fallback.maxMs };
}

const positive = () => z.number({ error: 'must be a number' }).check(z.positive('must be > 0'));
const nonNegative = () => z.number({ error: 'must be a number' }).check(z.nonnegative('must be >= 0'));
const positiveInt = () => z.number({ error: 'must be a number' }).check(z.int('must be an integer'), z.positive('must be > 0'));

/** `backfill`: on or off, or its bounds. */
export const backfillSchema = z.union([z.boolean(), z.strictObject({ maxBlocks: z.optional(positiveInt()), maxMs: z.optional(positive()) })], {
  error: 'must be a boolean or { maxBlocks?, maxMs? }',
});

/** Pool option `subscriptions`, checked with the rest of the config. */
export const subscriptionSettingsSchema = z
  .strictObject({
    deriveWsUrl: z.optional(z.boolean({ error: 'must be a boolean' })),
    maxSubscriptionsPerSocket: z.optional(positiveInt()),
    bufferSize: z.optional(positiveInt()),
    bufferBytes: z.optional(positiveInt()),
    maxFrameBytes: z.optional(positiveInt()),
    overflow: z.optional(z.enum(['drop-oldest', 'error'], { error: "must be 'drop-oldest' or 'error'" })),
    pingIntervalMs: z.optional(nonNegative()),
    pongTimeoutMs: z.optional(positive()),
    silenceFactor: z.optional(z.number({ error: 'must be a number' }).check(z.minimum(1, 'must be >= 1'))),
    minSilenceMs: z.optional(nonNegative()),
    requestTimeoutMs: z.optional(positive()),
    subscribeTimeoutMs: z.optional(positive()),
    initialBackoffMs: z.optional(nonNegative()),
    maxBackoffMs: z.optional(nonNegative()),
    idleSocketMs: z.optional(nonNegative()),
    share: z.optional(z.boolean({ error: 'must be a boolean' })),
    redundancy: z.optional(z.union([z.literal(1), z.literal(2)], { error: 'must be 1 or 2' })),
    socketFactory: z.optional(z.custom<SocketFactory>((value) => typeof value === 'function', { message: 'must be a function' })),
    backfill: z.optional(backfillSchema),
  })
  .check(
    z.refine((v) => v.initialBackoffMs === undefined || v.maxBackoffMs === undefined || v.maxBackoffMs >= v.initialBackoffMs, {
      message: 'maxBackoffMs must be >= initialBackoffMs',
      path: ['maxBackoffMs'],
    }),
  );

/** A WebSocket URL: `ws:` or `wss:`. The value is never echoed (it may hold a key). */
export const wsUrlSchema = z.string({ error: 'must be a string' }).check(
  z.refine(
    (value) => {
      try {
        const { protocol } = new URL(value);
        return protocol === 'ws:' || protocol === 'wss:';
      } catch {
        return false;
      }
    },
    { message: 'must be a ws(s) URL' },
  ),
);

/** `maxResponseBytes`: the pool's HTTP body bound, which a frame's bound follows unless set. */
export function resolveSubscriptionSettings(options: SubscriptionSettings | undefined, maxResponseBytes: number): ResolvedSubscriptionSettings {
  const o = options ?? {};
  const maxFrameBytes = o.maxFrameBytes ?? maxResponseBytes;
  return {
    deriveWsUrl: o.deriveWsUrl ?? false,
    maxSubscriptionsPerSocket: o.maxSubscriptionsPerSocket ?? 100,
    bufferSize: o.bufferSize ?? 1024,
    // Two frames of the largest size: a slow reader of big frames still gets them one by one.
    bufferBytes: o.bufferBytes ?? 2 * maxFrameBytes,
    maxFrameBytes,
    overflow: o.overflow ?? 'drop-oldest',
    pingIntervalMs: o.pingIntervalMs ?? 5_000,
    pongTimeoutMs: o.pongTimeoutMs ?? 5_000,
    silence: { factor: o.silenceFactor ?? 5, minMs: o.minSilenceMs ?? 2_000 },
    requestTimeoutMs: o.requestTimeoutMs ?? 5_000,
    subscribeTimeoutMs: o.subscribeTimeoutMs ?? 10_000,
    backoff: { initialBackoffMs: o.initialBackoffMs ?? 250, maxBackoffMs: Math.max(o.maxBackoffMs ?? 10_000, o.initialBackoffMs ?? 250) },
    idleSocketMs: o.idleSocketMs ?? 1_000,
    socketFactory: o.socketFactory,
    share: o.share ?? true,
    redundancy: o.redundancy ?? 1,
    backfill: resolveBackfill(o.backfill, DEFAULT_BACKFILL),
  };
}

/**
 * The WebSocket URL of an endpoint: its `wsUrl`; else, with `deriveWsUrl`, its `url` with
 * `http:` → `ws:` and `https:` → `wss:` (host, port, path and query kept — keys included,
 * so it is as secret as `url`); else none (the endpoint takes no subscriptions).
 */
export function wsUrlOf(endpoint: { readonly url: string; readonly wsUrl?: string | undefined }, derive: boolean): string | undefined {
  if (endpoint.wsUrl !== undefined) return endpoint.wsUrl;
  if (!derive) return undefined;
  const url = new URL(endpoint.url);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.href;
}
