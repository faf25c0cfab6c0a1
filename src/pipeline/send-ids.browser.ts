/**
 * The browser build's send-id reader, loaded on the first send. The hashing (keccak-256 for
 * `eth_sendRawTransaction`, the wire decoders for `sendTransaction`) sits in
 * `jsonrpc/transaction-id.ts`, which only this dynamic `import()` reaches: a page that never
 * sends does not carry it, and one that does fetches it before its first send goes out. The id
 * is known before anything is sent (its answer must be that id, its errors carry it,
 * `reconcileSends` looks it up), so a send waits for the load; a load that fails fails the call
 * with `LOAD_FAILED`, nothing sent, and is not remembered (the next send loads again). Node
 * imports the reader statically (`send-ids.ts`): no wait there.
 */
import { TransportError } from '../errors/transport-error.js';
import type { SendIdReader } from './send-id-rules.js';

let loaded: SendIdReader | undefined;
let loading: Promise<SendIdReader> | undefined;

/** The reader once loaded; before, the load (started once, forgotten when it fails). */
export function sendIdReader(): SendIdReader | Promise<SendIdReader> {
  if (loaded !== undefined) return loaded;
  loading ??= import('../jsonrpc/transaction-id.js').then(
    (module) => (loaded = module.sentTransactionIdOf),
    (error: unknown) => {
      loading = undefined;
      throw new TransportError('LOAD_FAILED', "The code that computes a send's transaction id could not be loaded; nothing was sent", {
        context: { module: 'transaction-id' },
        cause: error,
      });
    },
  );
  return loading;
}
