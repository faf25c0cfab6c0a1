/**
 * One node subscription's options: the caller's, else the pool's. Here, not in settings.ts:
 * the stream profiles it reads belong to the subscription code loaded on first use.
 */
import { backfillSetupOf, type BackfillRequest } from './backfill.js';
import type { ResolvedSubscriptionSettings } from './settings.js';
import { streamProfileOf } from './stream-profile.js';
import type { ManagedSubscriptionOptions, SubscriptionLink } from './subscription.js';
import type { SubscribeOptions } from './types.js';

export function subscriptionOptionsOf(
  id: number,
  method: string,
  params: readonly unknown[],
  options: SubscribeOptions,
  settings: ResolvedSubscriptionSettings,
  link: SubscriptionLink | undefined,
  request: BackfillRequest,
): ManagedSubscriptionOptions {
  return {
    id,
    method,
    params,
    profile: streamProfileOf(method, params),
    bufferSize: options.bufferSize ?? settings.bufferSize,
    bufferBytes: options.bufferBytes ?? settings.bufferBytes,
    overflow: options.overflow ?? settings.overflow,
    expectedIntervalMs: options.expectedIntervalMs,
    silence: settings.silence,
    link,
    backfill: backfillSetupOf(method, params, options.backfill, settings.backfill, request),
  };
}
