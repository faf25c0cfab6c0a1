import { TransportError } from '../errors/transport-error.js';
import type { HttpExecutor } from './executor.js';
import type { UndiciExecutorOptions } from './undici-executor.js';

/**
 * `createUndiciExecutor` in the browser/edge build: undici needs Node's sockets, so this build
 * does not contain it. Calling it throws `INVALID_CONFIG` naming the executor to use instead;
 * the pool's default executor in this build is already the fetch executor.
 */
export function createUndiciExecutor(_options: UndiciExecutorOptions = {}): HttpExecutor {
  throw new TransportError('INVALID_CONFIG', 'createUndiciExecutor is Node-only and is not in the browser/edge build; use createFetchExecutor() or omit `executor`', {
    context: { issues: [{ path: 'executor', message: 'the undici executor needs Node; the browser/edge build uses the fetch executor' }] },
  });
}
