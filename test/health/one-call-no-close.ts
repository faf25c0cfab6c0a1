/**
 * A program that makes one call through a pool whose bench loop is running and never calls
 * `close()`: it must exit by itself (probe timers are unref'd). Run by `exit.test.ts` as a
 * child process: `node --import tsx test/health/one-call-no-close.ts <url> <url>`.
 */
import { HttpTransportPool } from '../../src/index.js';

const [healthyUrl, downUrl] = process.argv.slice(2);
const pool = new HttpTransportPool({
  endpoints: [
    { id: 'healthy', url: healthyUrl! },
    { id: 'down', url: downUrl! },
  ],
  chain: 'solana',
  health: { probeAll: true, probeIntervalMs: 100 },
});
const slot = await pool.request('getSlot', [], { endpoint: 'healthy' });
console.log(`answered ${String(slot)}`);
// Let the bench loop run a few probes before the script's own work is done.
await new Promise((resolve) => setTimeout(resolve, 500));
console.log(`probed: ${pool.snapshot().endpoints[0]!.head === undefined ? 'no' : 'yes'}`);
