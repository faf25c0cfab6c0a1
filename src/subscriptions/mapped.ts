import type { Subscription, SubscriptionItem } from './types.js';

/** Anything that can open subscriptions: an `HttpTransportPool`. */
export interface Subscriber {
  subscribe<T = unknown>(method: string, params?: readonly unknown[], options?: import('./types.js').SubscribeOptions): Promise<Subscription<T>>;
}

/** `subscription` with every notification's value passed through `map` (typed helpers turn wire shapes into exact ones). */
export function mapSubscription<R>(subscription: Subscription, map: (value: unknown) => R): Subscription<R> {
  const next = async (): Promise<IteratorResult<SubscriptionItem<R>, undefined>> => {
    const result = await subscription.next();
    if (result.done) return result;
    const item = result.value;
    switch (item.kind) {
      case 'notification':
        return { done: false, value: { ...item, value: map(item.value) } };
      case 'resync':
        return { done: false, value: { ...item, values: item.values.map(map) } };
      default:
        return { done: false, value: item };
    }
  };
  const mapped: Subscription<R> = {
    get method() {
      return subscription.method;
    },
    get endpointId() {
      return subscription.endpointId;
    },
    get closed() {
      return subscription.closed;
    },
    close: () => subscription.close(),
    next,
    [Symbol.asyncIterator]() {
      return {
        next,
        return: async () => {
          await subscription.close();
          return { value: undefined, done: true };
        },
      };
    },
    [Symbol.asyncDispose]: () => subscription.close(),
  };
  return mapped;
}
