import type { TransportError } from '../errors/transport-error.js';
import type { SolanaCommitment } from './inputs.js';
import type { SignatureStatus, SolanaTransactionError } from './transaction-schemas.js';

/**
 * How a wait ended. `confirmed`: it landed at the commitment (`err` is non-null when it
 * landed and failed on chain — it still paid its fee; do not send it again). `expired`:
 * provably can never land — re-signing with a new blockhash is safe; every piece of the
 * proof agreed by two operators (`RpcRequester.requestWithOrigin`), so a requester that
 * cannot name a second operator never gets it. `unknown`: the
 * deadline came first — it may still land; do **not** re-sign, wait longer or until
 * expiry is provable.
 */
export type WaitForSignatureReturnType =
  | {
      readonly status: 'confirmed';
      readonly signature: string;
      readonly slot: bigint;
      readonly err: SolanaTransactionError | null;
      readonly confirmationStatus: SolanaCommitment;
    }
  | {
      readonly status: 'expired';
      readonly signature: string;
      readonly reason: 'block-height-exceeded' | 'blockhash-expired';
      /** Slot of the finalized bank that proved it. */
      readonly slot: bigint;
      /** Finalized block height that passed `lastValidBlockHeight` (reason `block-height-exceeded`). */
      readonly blockHeight?: bigint;
    }
  | {
      readonly status: 'unknown';
      readonly signature: string;
      /** The last status seen (e.g. `processed` but not yet `confirmed`), or `null` if never seen. */
      readonly lastStatus: SignatureStatus | null;
      /** The last poll that failed, if any did. */
      readonly lastError?: TransportError;
    };
