import * as z from 'zod';
import type { BackoffSettings } from '../retry/backoff.js';
import type { SilenceSettings } from './silence.js';
import type { SocketFactory } from './socket.js';
import type { OverflowPolicy, SubscriptionSettings } from './types.js';

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
}

const positive = () => z.number({ error: 'must be a number' }).positive('must be > 0').finite('must be finite');
const nonNegative = () => z.number({ error: 'must be a number' }).nonnegative('must be >= 0').finite('must be finite');
const positiveInt = () => z.number({ error: 'must be a number' }).int('must be an integer').positive('must be > 0');

/** Pool option `subscriptions`, checked with the rest of the config. */
export const subscriptionSettingsSchema = z
  .object({
    deriveWsUrl: z.boolean({ error: 'must be a boolean' }).optional(),
    maxSubscriptionsPerSocket: positiveInt().optional(),
    bufferSize: positiveInt().optional(),
    bufferBytes: positiveInt().optional(),
    maxFrameBytes: positiveInt().optional(),
    overflow: z.enum(['drop-oldest', 'error'], { error: "must be 'drop-oldest' or 'error'" }).optional(),
    pingIntervalMs: nonNegative().optional(),
    pongTimeoutMs: positive().optional(),
    silenceFactor: z.number({ error: 'must be a number' }).min(1, 'must be >= 1').finite('must be finite').optional(),
    minSilenceMs: nonNegative().optional(),
    requestTimeoutMs: positive().optional(),
    subscribeTimeoutMs: positive().optional(),
    initialBackoffMs: nonNegative().optional(),
    maxBackoffMs: nonNegative().optional(),
    idleSocketMs: nonNegative().optional(),
    socketFactory: z.custom<SocketFactory>((value) => typeof value === 'function', { message: 'must be a function' }).optional(),
  })
  .strict()
  .refine((v) => v.initialBackoffMs === undefined || v.maxBackoffMs === undefined || v.maxBackoffMs >= v.initialBackoffMs, {
    message: 'maxBackoffMs must be >= initialBackoffMs',
    path: ['maxBackoffMs'],
  });

/** A WebSocket URL: `ws:` or `wss:`. The value is never echoed (it may hold a key). */
export const wsUrlSchema = z.string({ error: 'must be a string' }).refine(
  (value) => {
    try {
      const { protocol } = new URL(value);
      return protocol === 'ws:' || protocol === 'wss:';
    } catch {
      return false;
    }
  },
  { message: 'must be a ws(s) URL' },
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
