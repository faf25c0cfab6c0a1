/** Typed EVM subscriptions over a pool: `onNewHeads` and `onLogs` (exact quantities). */
import { isEvmAddress } from '../evm/address.js';
import { TransportError } from '../errors/transport-error.js';
import type { RpcRequester } from '../api/request-options.js';
import { mapSubscription, type Subscriber } from './mapped.js';
import { asSubscriber } from './solana-helpers.js';
import type { SubscribeOptions, Subscription } from './types.js';

/** `newHeads` notification, quantities exact. `raw` keeps every field the node sent. */
export interface EvmHead {
  readonly number: bigint;
  readonly hash: `0x${string}`;
  readonly parentHash: `0x${string}`;
  readonly timestamp: bigint;
  readonly baseFeePerGas?: bigint;
  readonly raw: Readonly<Record<string, unknown>>;
}

/** `logs` notification. `removed: true` marks a log undone by a reorg. */
export interface EvmLog {
  readonly address: `0x${string}`;
  readonly topics: readonly `0x${string}`[];
  readonly data: `0x${string}`;
  readonly blockNumber: bigint;
  readonly blockHash: `0x${string}`;
  readonly transactionHash: `0x${string}`;
  readonly logIndex: number;
  readonly removed: boolean;
}

/** Filter of `onLogs`: contract address(es) and topics, as `eth_subscribe('logs')` takes them. */
export interface EvmLogFilter {
  readonly address?: `0x${string}` | readonly `0x${string}`[];
  readonly topics?: readonly (`0x${string}` | readonly `0x${string}`[] | null)[];
}

const TOPIC = /^0x[0-9a-fA-F]{64}$/;
const record = (value: unknown): Record<string, unknown> => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {});
const quantity = (value: unknown): bigint => (typeof value === 'string' && /^0x[0-9a-fA-F]+$/.test(value) ? BigInt(value) : 0n);
const hex = (value: unknown) => String(value ?? '0x') as `0x${string}`;

function invalid(field: string, expectation: string): never {
  throw new TransportError('INVALID_INPUT', `${field} must be ${expectation}`, { context: { field } });
}

/**
 * `eth_subscribe('newHeads')`: every new block. Ordered by number: a block number already
 * delivered is dropped (a new hash at the last number — a reorg at the tip — is
 * delivered). Blocks mined while the subscription moved are read over HTTP and delivered
 * in order first (`backfilled`, and `reorged` for those replacing delivered ones); what a
 * bounded or failed fill left, or everything with `backfill: false`, comes as a `gap` item.
 */
export async function onNewHeads(subscriber: Subscriber, options: SubscribeOptions = {}): Promise<Subscription<EvmHead>> {
  const sub = await subscriber.subscribe('eth_subscribe', ['newHeads'], options);
  return mapSubscription(sub, (value) => {
    const v = record(value);
    return {
      number: quantity(v['number']),
      hash: hex(v['hash']),
      parentHash: hex(v['parentHash']),
      timestamp: quantity(v['timestamp']),
      ...(v['baseFeePerGas'] === undefined ? {} : { baseFeePerGas: quantity(v['baseFeePerGas']) }),
      raw: v,
    };
  });
}

/** `eth_subscribe('logs', filter)`: matching logs, deduplicated by (block hash, log index, removed) across rebinds; logs emitted while the subscription moved are read by block hash and delivered before the live ones, those of blocks a reorg undid again with `removed: true` (unless `backfill: false`). */
export async function onLogs(subscriber: Subscriber, filter: EvmLogFilter = {}, options: SubscribeOptions = {}): Promise<Subscription<EvmLog>> {
  const addresses = filter.address === undefined ? [] : Array.isArray(filter.address) ? filter.address : [filter.address];
  for (const [i, address] of addresses.entries()) if (!isEvmAddress(address)) invalid(Array.isArray(filter.address) ? `filter.address[${i}]` : 'filter.address', 'a 0x-prefixed 20-byte hex address');
  for (const [i, topic] of (filter.topics ?? []).entries()) {
    const alternatives = topic === null ? [] : Array.isArray(topic) ? topic : [topic];
    if (alternatives.some((t) => !TOPIC.test(t))) invalid(`filter.topics[${i}]`, 'null, a 32-byte hex topic or an array of them');
  }
  const wire = { ...(filter.address === undefined ? {} : { address: filter.address }), ...(filter.topics === undefined ? {} : { topics: filter.topics }) };
  const sub = await subscriber.subscribe('eth_subscribe', ['logs', wire], options);
  return mapSubscription(sub, (value) => {
    const v = record(value);
    return {
      address: hex(v['address']),
      topics: (Array.isArray(v['topics']) ? v['topics'] : []).map(hex),
      data: hex(v['data']),
      blockNumber: quantity(v['blockNumber']),
      blockHash: hex(v['blockHash']),
      transactionHash: hex(v['transactionHash']),
      logIndex: Number(quantity(v['logIndex'])),
      removed: v['removed'] === true,
    };
  });
}

/** The typed EVM subscriptions, bound to one pool (what `createEvmClient` adds). */
export interface EvmSubscriptions {
  onNewHeads(options?: SubscribeOptions): Promise<Subscription<EvmHead>>;
  onLogs(filter?: EvmLogFilter, options?: SubscribeOptions): Promise<Subscription<EvmLog>>;
}

export function evmSubscriptions(requester: RpcRequester): EvmSubscriptions {
  const subscriber = asSubscriber(requester);
  return {
    onNewHeads: (options) => onNewHeads(subscriber, options),
    onLogs: (filter, options) => onLogs(subscriber, filter, options),
  };
}
