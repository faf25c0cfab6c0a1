/**
 * Typed Solana subscriptions over a pool: `onSlot`, `onAccountChange`,
 * `onProgramAccountChange`, `onLogs` (iterables of exact values) and `onSignature`
 * (resolves once, and survives a dropped socket).
 */
import { TransportError } from '../errors/transport-error.js';
import type { RpcRequester } from '../api/request-options.js';
import { isBase58OfLength } from '../jsonrpc/base58.js';
import { checkCommitment, compactConfig, invalidInput, type SolanaCommitment } from '../solana/inputs.js';
import { mapSubscription, type Subscriber } from './mapped.js';
import type { SubscribeOptions, Subscription } from './types.js';

/** `slotSubscribe` notification, exact. */
export interface SlotNotification {
  readonly slot: bigint;
  readonly parent: bigint;
  readonly root: bigint;
}

/** Account state as a node sends it (`accountSubscribe`, `programSubscribe`), u64 fields exact. */
export interface AccountInfo {
  readonly lamports: bigint;
  readonly owner: string;
  /** As encoded on the wire: `[data, encoding]` for base58/base64, an object for jsonParsed. */
  readonly data: unknown;
  readonly executable: boolean;
  readonly rentEpoch: bigint;
  readonly space?: number;
}

/** `accountSubscribe` notification. */
export interface AccountChangeNotification {
  /** Slot of the change (`context.slot`). */
  readonly slot: bigint;
  readonly account: AccountInfo;
}

/** `programSubscribe` notification. */
export interface ProgramAccountChangeNotification extends AccountChangeNotification {
  readonly pubkey: string;
}

/** `logsSubscribe` notification. */
export interface LogsNotification {
  readonly slot: bigint;
  readonly signature: string;
  readonly err: unknown;
  readonly logs: readonly string[];
}

export type AccountEncoding = 'base58' | 'base64' | 'base64+zstd' | 'jsonParsed';

/** Options of `onAccountChange` / `onProgramAccountChange`. */
export interface AccountSubscribeParameters {
  /** @default the node's default (`finalized`) */
  readonly commitment?: SolanaCommitment;
  /** @default 'base64' */
  readonly encoding?: AccountEncoding;
}

export interface ProgramSubscribeParameters extends AccountSubscribeParameters {
  /** `getProgramAccounts`-style filters (`{ dataSize }`, `{ memcmp }`), passed through. */
  readonly filters?: readonly unknown[];
}

/** What `onLogs` follows: every transaction, including votes, or those mentioning one address. */
export type LogsFilter = 'all' | 'allWithVotes' | { readonly mentions: string };

/** Options of `onSignature`. */
export interface OnSignatureParameters {
  /** @default 'confirmed' */
  readonly commitment?: SolanaCommitment;
  /** Aborting rejects with `ABORTED` and closes the subscription. Pass `AbortSignal.timeout(ms)` for a deadline. */
  readonly signal?: AbortSignal;
}

/** Result of `onSignature`: the transaction reached the commitment. */
export interface SignatureConfirmation {
  readonly slot: bigint;
  /** The transaction's error, `null` when it succeeded. */
  readonly err: unknown;
  /** How it was learned: the node's notification, or a `getSignatureStatuses` check (at start, or after a rebind). */
  readonly via: 'notification' | 'status-check';
}

const RANK: Readonly<Record<string, number>> = { processed: 0, confirmed: 1, finalized: 2 };

const record = (value: unknown): Record<string, unknown> => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {});
const u64 = (value: unknown): bigint => (typeof value === 'bigint' ? value : typeof value === 'number' && Number.isFinite(value) ? BigInt(Math.trunc(value)) : 0n);

function accountOf(value: unknown): AccountInfo {
  const v = record(value);
  return {
    lamports: u64(v['lamports']),
    owner: String(v['owner'] ?? ''),
    data: v['data'],
    executable: v['executable'] === true,
    rentEpoch: u64(v['rentEpoch']),
    ...(typeof v['space'] === 'number' ? { space: v['space'] } : {}),
  };
}

function assertAddress(value: unknown, field: string): asserts value is string {
  if (!isBase58OfLength(value, 32)) invalidInput(field, 'a base58 address of 32 bytes');
}

function accountConfig(parameters: AccountSubscribeParameters, field: string): Record<string, unknown> {
  const commitment = checkCommitment(parameters.commitment, `${field}.commitment`);
  const encoding = parameters.encoding ?? 'base64';
  if (!['base58', 'base64', 'base64+zstd', 'jsonParsed'].includes(encoding)) invalidInput(`${field}.encoding`, "'base58', 'base64', 'base64+zstd' or 'jsonParsed'");
  return compactConfig({ commitment, encoding }) ?? {};
}

/** `slotSubscribe`: every slot the node processes (ordered: duplicates dropped across rebinds, skips reported as `gap`). */
export async function onSlot(subscriber: Subscriber, options: SubscribeOptions = {}): Promise<Subscription<SlotNotification>> {
  const sub = await subscriber.subscribe('slotSubscribe', [], options);
  return mapSubscription(sub, (value) => {
    const v = record(value);
    return { slot: u64(v['slot']), parent: u64(v['parent']), root: u64(v['root']) };
  });
}

/**
 * `accountSubscribe`: every change of `address`. Account notifications carry no sequence:
 * a change older than or at the slot of the last one delivered is dropped. After a rebind
 * the account is read once over HTTP and comes as a `resync` item (its `values`: the state
 * now), unless `backfill: false`.
 */
export async function onAccountChange(
  subscriber: Subscriber,
  address: string,
  parameters: AccountSubscribeParameters = {},
  options: SubscribeOptions = {},
): Promise<Subscription<AccountChangeNotification>> {
  assertAddress(address, 'address');
  const sub = await subscriber.subscribe('accountSubscribe', [address, accountConfig(parameters, 'parameters')], options);
  return mapSubscription(sub, (value) => {
    const v = record(value);
    return { slot: u64(record(v['context'])['slot']), account: accountOf(v['value']) };
  });
}

/** `programSubscribe`: every change of an account owned by `programId` (same guarantees as `onAccountChange`, per account). */
export async function onProgramAccountChange(
  subscriber: Subscriber,
  programId: string,
  parameters: ProgramSubscribeParameters = {},
  options: SubscribeOptions = {},
): Promise<Subscription<ProgramAccountChangeNotification>> {
  assertAddress(programId, 'programId');
  if (parameters.filters !== undefined && !Array.isArray(parameters.filters)) invalidInput('parameters.filters', 'an array');
  const config = { ...accountConfig(parameters, 'parameters'), ...(parameters.filters === undefined ? {} : { filters: parameters.filters }) };
  const sub = await subscriber.subscribe('programSubscribe', [programId, config], options);
  return mapSubscription(sub, (value) => {
    const v = record(value);
    const keyed = record(v['value']);
    return { slot: u64(record(v['context'])['slot']), pubkey: String(keyed['pubkey'] ?? ''), account: accountOf(keyed['account']) };
  });
}

/** `logsSubscribe`: transaction logs (deduplicated by signature across rebinds; missed ones are not replayed). */
export async function onLogs(
  subscriber: Subscriber,
  filter: LogsFilter,
  parameters: { readonly commitment?: SolanaCommitment } = {},
  options: SubscribeOptions = {},
): Promise<Subscription<LogsNotification>> {
  if (typeof filter === 'object' && filter !== null) assertAddress(filter.mentions, 'filter.mentions');
  else if (filter !== 'all' && filter !== 'allWithVotes') invalidInput('filter', "'all', 'allWithVotes' or { mentions: address }");
  const commitment = checkCommitment(parameters.commitment, 'parameters.commitment');
  const wire = typeof filter === 'object' ? { mentions: [filter.mentions] } : filter;
  const sub = await subscriber.subscribe('logsSubscribe', [wire, compactConfig({ commitment }) ?? {}], options);
  return mapSubscription(sub, (value) => {
    const v = record(value);
    const inner = record(v['value']);
    const logs = Array.isArray(inner['logs']) ? inner['logs'].map(String) : [];
    return { slot: u64(record(v['context'])['slot']), signature: String(inner['signature'] ?? ''), err: inner['err'] ?? null, logs };
  });
}

/**
 * Resolves once `signature` reaches `commitment`. Subscribes (`signatureSubscribe`), and
 * checks `getSignatureStatuses` over HTTP once right after subscribing (the transaction may
 * already be there) and once after every rebind: a confirmation that happened while the
 * socket was down is not missed. Rejects with `SUBSCRIPTION_CLOSED` if the pool closes,
 * `ABORTED` on the signal. A transaction that failed on chain resolves too, with its `err`.
 */
export async function onSignature(client: Subscriber & RpcRequester, signature: string, parameters: OnSignatureParameters = {}): Promise<SignatureConfirmation> {
  if (!isBase58OfLength(signature, 64)) invalidInput('signature', 'a base58 signature of 64 bytes');
  const commitment = checkCommitment(parameters.commitment, 'parameters.commitment') ?? 'confirmed';
  const signal = parameters.signal;
  const sub = await client.subscribe('signatureSubscribe', [signature, { commitment }], signal === undefined ? {} : { signal });
  let settle!: (confirmation: SignatureConfirmation | undefined) => void;
  const checked = new Promise<SignatureConfirmation | undefined>((resolve) => {
    settle = resolve;
  });
  const check = () => {
    client
      .request('getSignatureStatuses', [[signature], { searchTransactionHistory: false }], signal === undefined ? {} : { signal })
      .then((result) => {
        const status = record((record(result)['value'] as unknown[] | undefined)?.[0]);
        const level = status['confirmationStatus'];
        if (typeof level === 'string' && (RANK[level] ?? -1) >= RANK[commitment]!) settle({ slot: u64(status['slot']), err: status['err'] ?? null, via: 'status-check' });
      })
      // A failed check is no verdict: the subscription goes on.
      .catch(() => undefined);
  };
  const fromStream = (async (): Promise<SignatureConfirmation | undefined> => {
    for (;;) {
      const next = await sub.next();
      if (next.done) return undefined;
      const item = next.value;
      if (item.kind === 'rebind') check();
      if (item.kind !== 'notification') continue;
      const v = record(item.value);
      const inner = record(v['value']);
      // `receivedSignature` (enableReceivedNotification) is not a commitment.
      if (inner['err'] === undefined && typeof v['value'] === 'string') continue;
      return { slot: u64(record(v['context'])['slot']), err: inner['err'] ?? null, via: 'notification' };
    }
  })();
  // Once the race is decided, the stream's end (or an overflow error) has nobody to tell.
  fromStream.catch(() => undefined);
  check();
  try {
    const confirmation = await Promise.race([fromStream, checked.then((c) => c ?? new Promise<never>(() => undefined))]);
    if (confirmation !== undefined) return confirmation;
    if (signal?.aborted) throw new TransportError('ABORTED', 'onSignature was aborted', { context: {}, method: 'signatureSubscribe', cause: signal.reason });
    throw new TransportError('SUBSCRIPTION_CLOSED', 'The signature subscription ended before the transaction reached the commitment', {
      context: { method: 'signatureSubscribe' },
      method: 'signatureSubscribe',
    });
  } finally {
    settle(undefined);
    await sub.close();
  }
}

/** The typed Solana subscriptions, bound to one pool (what `createSolanaClient` adds). */
export interface SolanaSubscriptions {
  onSlot(options?: SubscribeOptions): Promise<Subscription<SlotNotification>>;
  onAccountChange(address: string, parameters?: AccountSubscribeParameters, options?: SubscribeOptions): Promise<Subscription<AccountChangeNotification>>;
  onProgramAccountChange(programId: string, parameters?: ProgramSubscribeParameters, options?: SubscribeOptions): Promise<Subscription<ProgramAccountChangeNotification>>;
  onLogs(filter: LogsFilter, parameters?: { readonly commitment?: SolanaCommitment }, options?: SubscribeOptions): Promise<Subscription<LogsNotification>>;
  onSignature(signature: string, parameters?: OnSignatureParameters): Promise<SignatureConfirmation>;
}

/** Binds the helpers to `requester`; they reject with `SUBSCRIPTION_FAILED` (reason `unsupported`) when it cannot subscribe. */
export function solanaSubscriptions(requester: RpcRequester): SolanaSubscriptions {
  const subscriber = asSubscriber(requester);
  const client = { request: requester.request.bind(requester), subscribe: subscriber.subscribe };
  return {
    onSlot: (options) => onSlot(subscriber, options),
    onAccountChange: (address, parameters, options) => onAccountChange(subscriber, address, parameters, options),
    onProgramAccountChange: (programId, parameters, options) => onProgramAccountChange(subscriber, programId, parameters, options),
    onLogs: (filter, parameters, options) => onLogs(subscriber, filter, parameters, options),
    onSignature: (signature, parameters) => onSignature(client, signature, parameters),
  };
}

/** `requester` as a {@link Subscriber}, or one whose every call rejects with `SUBSCRIPTION_FAILED` (`unsupported`). */
export function asSubscriber(requester: RpcRequester): Subscriber {
  const candidate = requester as Partial<Subscriber>;
  if (typeof candidate.subscribe === 'function') return { subscribe: candidate.subscribe.bind(requester) as Subscriber['subscribe'] };
  return {
    subscribe: (method) =>
      Promise.reject(
        new TransportError('SUBSCRIPTION_FAILED', 'This requester cannot subscribe: pass an HttpTransportPool', {
          context: { method, reason: 'unsupported' },
          method,
        }),
      ),
  };
}
