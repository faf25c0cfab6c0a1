/**
 * The fixed, seeded workload of the fault scenarios: reads of distinct addresses (so no
 * client cache can answer one) and sends of unique signed transactions, each in both an
 * EVM and a Solana form so every client runs the same sequence.
 */
import { base58 } from '@scure/base';
import { Wallet, Transaction } from 'ethers';
import { randomBytes, seededRandom } from './fault-model.js';

export type WorkItem =
  | { readonly kind: 'read'; readonly evmAddress: `0x${string}`; readonly solanaAddress: string }
  | {
      readonly kind: 'send';
      readonly evmRaw: `0x${string}`;
      readonly evmHash: string;
      readonly solanaWire: Uint8Array;
      readonly solanaSignature: string;
    };

/** anvil's first well-known test key: never funded anywhere that matters. */
const TEST_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

const toHex = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex')}` as `0x${string}`;

export async function createWorkload(calls: number, sendRatio: number, seed: number): Promise<WorkItem[]> {
  const random = seededRandom(seed);
  const wallet = new Wallet(TEST_KEY);
  const items: WorkItem[] = [];
  let nonce = 0;
  for (let i = 0; i < calls; i++) {
    if (random() >= sendRatio) {
      items.push({ kind: 'read', evmAddress: toHex(randomBytes(random, 20)), solanaAddress: base58.encode(randomBytes(random, 32)) });
      continue;
    }
    const to = toHex(randomBytes(random, 20));
    const evmRaw = (await wallet.signTransaction({
      type: 2,
      chainId: 1,
      nonce: nonce++,
      to,
      value: 1n,
      gasLimit: 21_000n,
      maxFeePerGas: 30_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    })) as `0x${string}`;
    // A Solana wire transaction: one signature, then a short message.
    const solanaWire = new Uint8Array(1 + 64 + 40);
    solanaWire[0] = 1;
    solanaWire.set(randomBytes(random, 64 + 40), 1);
    items.push({
      kind: 'send',
      evmRaw,
      evmHash: Transaction.from(evmRaw).hash!,
      solanaWire,
      solanaSignature: base58.encode(solanaWire.subarray(1, 65)),
    });
  }
  return items;
}
