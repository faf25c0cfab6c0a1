/**
 * What every `Subscription` is besides its `next()` and `close()`: an async iterator whose
 * `return()` (a `break` out of `for await`) and `await using` close it.
 */
import type { SubscriptionItem } from './types.js';

export abstract class SubscriptionIterator {
  abstract next(): Promise<IteratorResult<SubscriptionItem, undefined>>;
  abstract close(): Promise<void>;

  async return(): Promise<IteratorResult<SubscriptionItem, undefined>> {
    await this.close();
    return { value: undefined, done: true };
  }

  [Symbol.asyncIterator](): AsyncIterator<SubscriptionItem, undefined> {
    return this;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
