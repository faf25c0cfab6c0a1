/**
 * `sturdy-rpc/credits`: the providers' per-method credit tables, as data with their source
 * and date. Apart from the main entry, so a page that prices no call bundles none of them.
 *
 * ```ts
 * import { creditTables } from 'sturdy-rpc/credits';
 * const endpoint = { url, plan: { table: creditTables.alchemy, creditsPerSecond: 330 } };
 * ```
 *
 * @module sturdy-rpc/credits
 */
export { creditTables, type CreditProvider } from './tables.js';
export type { CreditTable } from '../admission/credit-meter.js';
