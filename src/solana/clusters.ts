/** Public Solana clusters this package recognises by genesis hash. */
export type SolanaCluster = 'mainnet-beta' | 'devnet' | 'testnet';

/** Genesis hash (base58) of each public Solana cluster. */
export const SOLANA_GENESIS_HASHES: Readonly<Record<SolanaCluster, string>> = Object.freeze({
  'mainnet-beta': '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d',
  devnet: 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG',
  testnet: '4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY',
});

/**
 * The public cluster whose genesis hash is `genesisHash`, or `undefined` for any other
 * chain (a local validator, a private cluster). Base58 is case-sensitive: no folding.
 *
 * ```ts
 * solanaClusterOf(await sol.getGenesisHash()); // 'mainnet-beta'
 * ```
 */
export function solanaClusterOf(genesisHash: string): SolanaCluster | undefined {
  for (const [cluster, hash] of Object.entries(SOLANA_GENESIS_HASHES) as [SolanaCluster, string][]) {
    if (hash === genesisHash) return cluster;
  }
  return undefined;
}
