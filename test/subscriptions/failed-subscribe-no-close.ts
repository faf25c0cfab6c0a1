/**
 * A program whose subscribes fail (a -32601 refusal, then one the node never confirms) and
 * that never calls `pool.close()`: it must exit by itself once the unused socket has closed
 * (`idleSocketMs`). Run by `exit.test.ts` as a child process:
 * `node --import tsx test/subscriptions/failed-subscribe-no-close.ts <url> <wsUrl>`.
 */
import { HttpTransportPool, isTransportError } from '../../src/index.js';

const [url, wsUrl] = process.argv.slice(2);
const pool = new HttpTransportPool({ endpoints: [{ id: 'n', url: url!, wsUrl: wsUrl! }] });
const codeOf = (error: unknown) => (isTransportError(error, 'SUBSCRIPTION_FAILED') ? `${error.context.reason}` : 'other');
await pool.subscribe('notAMethod', []).then(
  () => console.log('refused: no'),
  (error: unknown) => console.log(`refused: ${codeOf(error)}`),
);
await pool.subscribe('slotSubscribe', [], { timeoutMs: 300 }).then(
  () => console.log('unconfirmed: no'),
  (error: unknown) => console.log(`unconfirmed: ${codeOf(error)}`),
);
