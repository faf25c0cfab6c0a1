/**
 * Solana rows of the integrity table: a `getTransaction` whose signatures include the one
 * asked, a context slot (or `getSlot`'s slot) not below the `minContextSlot` sent, and
 * `getGenesisHash` on the verified chain. Pure.
 */
import { base58 } from '@scure/base';
import { decodeCompactU16, SOLANA_SIGNATURE_BYTES } from '../jsonrpc/solana-wire-layout.js';
import { decodeSolanaWire } from '../jsonrpc/solana-wire.js';
import { integrityRow } from './evm-checks.js';
import type { AnyIntegrityRow, IntegrityCheckName } from './types.js';

/** Methods whose config takes `minContextSlot` and whose answer shows the slot it was served at. */
const MIN_CONTEXT_SLOT_METHODS = [
  'getSlot',
  'getAccountInfo',
  'getBalance',
  'getMultipleAccounts',
  'getProgramAccounts',
  'getLatestBlockhash',
  'getTokenAccountBalance',
  'getTokenAccountsByOwner',
  'getTokenAccountsByDelegate',
  'getFeeForMessage',
  'isBlockhashValid',
  'simulateTransaction',
];

function slotOf(value: unknown): bigint | undefined {
  if (typeof value === 'bigint') return value;
  return typeof value === 'number' && Number.isSafeInteger(value) ? BigInt(value) : undefined;
}

/** The `minContextSlot` of the call's config object (the last param that is an object), if any. */
function minContextSlotOf(params: readonly unknown[]): bigint | undefined {
  for (let i = params.length - 1; i >= 0; i--) {
    const param = params[i];
    if (typeof param === 'object' && param !== null && !Array.isArray(param)) return slotOf((param as Record<string, unknown>)['minContextSlot']);
  }
  return undefined;
}

/** The slot the answer says it was served at: `getSlot`'s own result, else `context.slot`. */
function servedSlotOf(method: string, result: unknown): bigint | undefined {
  if (method === 'getSlot') return slotOf(result);
  const context = typeof result === 'object' && result !== null ? (result as Record<string, unknown>)['context'] : undefined;
  return typeof context === 'object' && context !== null ? slotOf((context as Record<string, unknown>)['slot']) : undefined;
}

/** The signatures of an encoded wire transaction (`[data, encoding]`), or undefined when it cannot be read here (zstd, malformed). */
function wireSignatures(encoded: readonly unknown[]): string[] | undefined {
  const [data, encoding] = encoded;
  if (typeof data !== 'string' || (encoding !== 'base64' && encoding !== 'base58')) return undefined;
  const bytes = decodeSolanaWire(data, encoding);
  const count = bytes === undefined ? undefined : decodeCompactU16(bytes);
  if (bytes === undefined || count === undefined || bytes.length < count.size + count.value * SOLANA_SIGNATURE_BYTES) return undefined;
  const signatures: string[] = [];
  for (let i = 0; i < count.value; i++) {
    const start = count.size + i * SOLANA_SIGNATURE_BYTES;
    signatures.push(base58.encode(bytes.subarray(start, start + SOLANA_SIGNATURE_BYTES)));
  }
  return signatures;
}

function verifySignature(asked: string, result: unknown): IntegrityCheckName | undefined {
  if (result === null) return undefined;
  const transaction = typeof result === 'object' ? (result as Record<string, unknown>)['transaction'] : undefined;
  let signatures: unknown;
  if (Array.isArray(transaction)) {
    signatures = wireSignatures(transaction);
    // An encoding this check cannot read (base64+zstd) says nothing either way; unreadable base58/base64 bytes are a lie.
    if (signatures === undefined) return transaction[1] === 'base64' || transaction[1] === 'base58' ? 'transaction-signature' : undefined;
  } else if (typeof transaction === 'object' && transaction !== null) {
    signatures = (transaction as Record<string, unknown>)['signatures'];
  }
  // No signatures to read (a trimmed answer): its shape is the typed client's to judge, not a contradiction.
  if (!Array.isArray(signatures)) return undefined;
  return signatures.includes(asked) ? undefined : 'transaction-signature';
}

interface MinContextSlot {
  readonly method: string;
  readonly minContextSlot: bigint;
}

export const SOLANA_ROWS: readonly AnyIntegrityRow[] = [
  integrityRow<string>({
    methods: ['getTransaction'],
    checks: ['transaction-signature'],
    // A signature is 64 bytes: at most 88 base58 characters.
    ask: (params) => (typeof params[0] === 'string' && params[0].length > 0 && params[0].length <= 88 ? params[0] : undefined),
    verify: verifySignature,
  }),
  integrityRow<MinContextSlot>({
    methods: MIN_CONTEXT_SLOT_METHODS,
    checks: ['min-context-slot'],
    ask: (params, _facts, method) => {
      const minContextSlot = minContextSlotOf(params);
      return minContextSlot === undefined ? undefined : { method, minContextSlot };
    },
    verify: (asked, result) => {
      const served = servedSlotOf(asked.method, result);
      return served !== undefined && served < asked.minContextSlot ? 'min-context-slot' : undefined;
    },
  }),
  integrityRow<string>({
    methods: ['getGenesisHash'],
    checks: ['genesis-hash'],
    ask: (_params, facts) => (facts.genesisHash === undefined || facts.genesisHash.startsWith('0x') ? undefined : facts.genesisHash),
    verify: (expected, result, chainVerified) => (!chainVerified || result === expected ? undefined : 'genesis-hash'),
  }),
];
