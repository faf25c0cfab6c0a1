import type { Clock } from '../clock.js';
import { TransportError } from '../errors/transport-error.js';
import type { ServeStatusOptions, StatusServer, StatusSource } from './status-server.js';

export const DEFAULT_STATUS_WINDOW_MS = 10_000;

/**
 * `pool.serveStatus()` in the browser/edge build: a page cannot listen on a port, so this
 * build has no status server. Calling it rejects with `INVALID_CONFIG`; read
 * `pool.snapshot()` directly instead.
 */
export function startStatusServer(_pool: StatusSource, _clock: Clock, _options: ServeStatusOptions): Promise<StatusServer> {
  return Promise.reject(
    new TransportError('INVALID_CONFIG', 'serveStatus() needs Node (node:http) and is not in the browser/edge build; read pool.snapshot() instead', {
      context: { issues: [{ path: 'serveStatus', message: 'the status server needs Node' }] },
    }),
  );
}
