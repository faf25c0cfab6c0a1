/**
 * A send's transaction id, computed by code loaded on the first send. The hashing (keccak-256
 * for `eth_sendRawTransaction`, the wire decoders and base58 for `sendTransaction`) sits in
 * `jsonrpc/transaction-id.ts`, which only this dynamic `import()` reaches: a page that never
 * sends does not carry it, and a page that does fetches it before its first send goes out. The
 * id is known before anything is sent (its answer must be that id, its errors carry it,
 * `reconcileSends` looks it up), so a send waits for the load; a load that fails fails the call
 * with nothing sent, and is not remembered (the next send loads again).
 */
import { TransportError } from '../errors/transport-error.js';
import type { SentTransactionId } from '../jsonrpc/answer-ids.js';
import type { MethodClassification } from '../config/types.js';

/** Reads the id of a send from its method and params (`sentTransactionIdOf`). */
export type SendIdReader = (method: string, params: readonly unknown[]) => SentTransactionId | undefined;

/** The only methods an id can be read from (`sentTransactionIdOf`). */
const SEND_METHODS: ReadonlySet<string> = new Set(['sendTransaction', 'eth_sendRawTransaction']);

/** Calls whose id the pool computes: the two send methods, when they are never resent after dispatch. */
export function needsSendId(method: string, retryClass: MethodClassification['retryClass']): boolean {
  return retryClass === 'never-after-dispatch' && SEND_METHODS.has(method);
}

let loading: Promise<SendIdReader> | undefined;

/** The reader, loaded once; a failed load rejects with `LOAD_FAILED` and is forgotten. */
export function loadSendIdReader(load: () => Promise<{ readonly sentTransactionIdOf: SendIdReader }> = importTransactionId): Promise<SendIdReader> {
  loading ??= load().then(
    (module) => module.sentTransactionIdOf,
    (error: unknown) => {
      loading = undefined;
      throw new TransportError('LOAD_FAILED', 'The code that computes a send\'s transaction id could not be loaded; nothing was sent', {
        context: { module: 'transaction-id' },
        cause: error,
      });
    },
  );
  return loading;
}

function importTransactionId(): Promise<{ readonly sentTransactionIdOf: SendIdReader }> {
  return import('../jsonrpc/transaction-id.js');
}
