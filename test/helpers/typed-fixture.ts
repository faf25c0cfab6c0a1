import { base64 } from '@scure/base';
import type { EvmClient } from '../../src/evm/client.js';
import type { SolanaClient } from '../../src/solana/client.js';

/**
 * Replaying a success fixture through the typed clients: `expect.client` names the call,
 * `expect.args` its arguments (else the request's params, or none for the calls that take
 * none), and `expect.result` the typed answer with `{ $bigint }` and `{ $bytes }` (base64).
 */

interface TypedFixture {
  readonly name: string;
  readonly chain: string;
  readonly request: { readonly params: readonly unknown[] };
  readonly expect?: Readonly<Record<string, unknown>> | undefined;
}

/** Calls that take only request options: the fixture's params are what the client sends, not arguments. */
const NO_ARGUMENTS = new Set(['getHealth', 'getVersion', 'getGenesisHash', 'getChainId', 'getBlockNumber', 'gasPrice', 'maxPriorityFeePerGas']);

export function typedArgsOf(fixture: TypedFixture): unknown[] {
  const client = String(fixture.expect?.['client']);
  const args = fixture.expect?.['args'];
  if (Array.isArray(args)) return reviveExpected(args) as unknown[];
  return NO_ARGUMENTS.has(client) ? [] : [...fixture.request.params];
}

/** Calls the typed function the fixture names on the client of its chain. */
export function callTypedFixture(fixture: TypedFixture, clients: { sol: SolanaClient; evm: EvmClient }): Promise<unknown> {
  const client = (fixture.chain === 'solana' ? clients.sol : clients.evm) as unknown as Record<string, unknown>;
  const name = String(fixture.expect?.['client']);
  const call = client[name];
  if (typeof call !== 'function') throw new Error(`fixture ${fixture.name}: no typed call ${name}`);
  return (call as (...args: unknown[]) => Promise<unknown>)(...typedArgsOf(fixture));
}

/** `{ $bigint: '…' }` → bigint, `{ $bytes: base64 }` → Uint8Array, recursively. */
export function reviveExpected(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reviveExpected);
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value);
  if (entries.length === 1 && entries[0]?.[0] === '$bigint' && typeof entries[0][1] === 'string') return BigInt(entries[0][1]);
  if (entries.length === 1 && entries[0]?.[0] === '$bytes' && typeof entries[0][1] === 'string') return base64.decode(entries[0][1]);
  return Object.fromEntries(entries.map(([key, item]) => [key, reviveExpected(item)]));
}
