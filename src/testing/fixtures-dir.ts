import { fileURLToPath } from 'node:url';

/**
 * Absolute path of the recorded fixtures that ship with the package (`fixtures/` at the
 * package root: Solana and EVM answers and provider fault cases, format in its README.md).
 * From `src/testing/` in a checkout and from `dist/testing/` in an installed package the
 * folder is two levels up.
 *
 * ```ts
 * loadFixtures([`${fixturesDir}/solana-getBalance.json`]); // one file
 * loadFixtures(fixturesDir);                               // every file (some are fault cases)
 * ```
 */
export const fixturesDir: string = fileURLToPath(new URL('../../fixtures', import.meta.url));
