/**
 * The bounded buffer between a stream and one caller, with the overflow reporting every
 * caller gets: an `overflow` event and item (`drop-oldest`), or `SUBSCRIPTION_OVERFLOW`
 * (`error`). A subscription of its own holds one; callers sharing a node subscription hold
 * one each (see shared-subscriptions.ts), so a slow caller's policy applies to it alone.
 */
import { TransportError } from '../errors/transport-error.js';
import { ItemBuffer } from './item-buffer.js';
import type { OverflowPolicy, SubscriptionEvent, SubscriptionItem } from './types.js';

export interface CallerBufferOptions {
  readonly bufferSize: number;
  readonly bufferBytes: number;
  readonly overflow: OverflowPolicy;
}

/** Who the buffer reports for: the subscription's id and method, and the endpoint serving it when it overflows. */
export interface CallerBufferOwner {
  readonly id: number;
  readonly method: string;
  readonly endpointId: string;
}

export function callerBuffer(
  owner: CallerBufferOwner,
  host: { now(): number; emit(event: SubscriptionEvent): void },
  options: CallerBufferOptions,
): ItemBuffer<SubscriptionItem> {
  const { bufferSize, bufferBytes } = options;
  return new ItemBuffer<SubscriptionItem>(
    bufferSize,
    bufferBytes,
    options.overflow,
    (dropped) => {
      const atMs = host.now();
      host.emit({ atMs, phase: 'overflow', method: owner.method, subscriptionId: owner.id, endpointId: owner.endpointId, dropped });
      return { kind: 'overflow', dropped, atMs, endpointId: owner.endpointId };
    },
    () =>
      new TransportError('SUBSCRIPTION_OVERFLOW', `Subscription '${owner.method}' overflowed its buffer of ${bufferSize} items or ${bufferBytes} bytes`, {
        context: { method: owner.method, bufferSize, bufferBytes },
        method: owner.method,
        endpointId: owner.endpointId,
      }),
  );
}
