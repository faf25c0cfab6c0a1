/** EVM chains this package recognises by genesis block hash. */
export type EvmChain = 'mainnet';

/** Genesis block hash (lowercase hex) of each recognised chain. */
export const EVM_GENESIS_HASHES: Readonly<Record<EvmChain, `0x${string}`>> = Object.freeze({
  mainnet: '0xd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3',
});

/**
 * The chain whose genesis block hash is `genesisHash` (compared case-insensitively), or
 * `undefined` for any other chain. Only Ethereum mainnet is listed; test networks and L2s
 * are left to `getChainId`, which is cheaper and unambiguous for them.
 *
 * ```ts
 * evmChainOf(await evm.getGenesisHash()); // 'mainnet'
 * ```
 */
export function evmChainOf(genesisHash: string): EvmChain | undefined {
  const hash = genesisHash.toLowerCase();
  for (const [chain, known] of Object.entries(EVM_GENESIS_HASHES) as [EvmChain, string][]) {
    if (known === hash) return chain;
  }
  return undefined;
}
