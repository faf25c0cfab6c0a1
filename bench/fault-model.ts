/**
 * What the benchmark server answers, shared by the server process (fault-server.ts) and the
 * harness, so the harness can check every result against the right chain's answer.
 * Pure functions only: the server imports this file.
 */
import { base58 } from '@scure/base';

/** How one port of the benchmark server misbehaves. */
export type PortFault =
  | { readonly type: 'normal' }
  /** HTTP 429 with `Retry-After` once a port got more than `requestsPerSecond` in the current second. */
  | { readonly type: 'rate-limit'; readonly requestsPerSecond: number; readonly retryAfterSeconds: number }
  /** Processes the request, then resets the connection: every `round(1 / ratio)`-th request. */
  | { readonly type: 'reset'; readonly ratio: number }
  /** Answers after `factor` × the base delay. */
  | { readonly type: 'slow'; readonly factor: number }
  /** Another chain: other chain id, genesis, heights and balances; rejects sends signed for ours. */
  | { readonly type: 'wrong-chain' }
  /** The right chain, `blocks` behind: heads (`eth_blockNumber`, `getSlot`, `context.slot`) that much lower, balances stale. */
  | { readonly type: 'lag'; readonly blocks: number };

export interface FaultServerConfig {
  /** Fixed delay of every answer, in ms (0: answer synchronously). */
  readonly baseDelayMs: number;
  readonly ports: readonly PortFault[];
}

export interface PortStats {
  /** Requests that reached the port (including those answered 429 or reset). */
  readonly received: number;
  /** JSON-RPC calls received: each item of a batch counts (what a provider billing per call counts). */
  readonly items: number;
  readonly rateLimited: number;
  readonly resets: number;
}

export interface FaultServerStats {
  readonly ports: readonly PortStats[];
  /** Send payloads processed by any port (a payload processed twice counts twice). */
  readonly sendsProcessed: number;
  /** Distinct send payloads processed more than once, across all ports. */
  readonly duplicatedPayloads: number;
  /** Σ (times processed − 1) over every send payload: copies beyond the first. */
  readonly duplicateSends: number;
  /** Server process CPU (user + system) since it started, in ms. */
  readonly cpuMs: number;
}

export const EVM_CHAIN_ID = 1;
export const WRONG_EVM_CHAIN_ID = 11155111;
export const BLOCK_NUMBER = 20_000_000;
export const WRONG_BLOCK_NUMBER = 6_000_000;
export const SLOT = 312_345_678;
export const WRONG_SLOT = 290_000_000;
export const SOLANA_MAINNET_GENESIS = '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d';
export const SOLANA_DEVNET_GENESIS = 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG';

/** Balance of an EVM address (wei) on the right chain; the wrong chain answers one more, a lagging node two more (stale). Below 2^53. */
export function evmBalanceOf(address: string, wrongChain = false, stale = false): bigint {
  const tail = Number.parseInt(address.slice(-10), 16);
  return BigInt(Number.isFinite(tail) ? tail : 0) * 1_000n + (wrongChain ? 1n : 0n) + (stale ? 2n : 0n);
}

/** Balance of a Solana address (lamports) on the right chain; the wrong chain answers one more. Below 2^53. */
export function solanaBalanceOf(address: string, wrongChain = false): number {
  let bytes: Uint8Array;
  try {
    bytes = base58.decode(address);
  } catch {
    return 0;
  }
  let value = 0;
  for (let i = 0; i < 5 && i < bytes.length; i++) value = value * 256 + bytes[i]!;
  return value * 1_000 + (wrongChain ? 1 : 0);
}

/** A small seeded PRNG (mulberry32), so every library gets the same workload. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randomBytes(random: () => number, length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = Math.floor(random() * 256);
  return bytes;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}
