/**
 * The pool's side of `serveStatus()`: validates the options and loads the server on demand
 * (`node:http` stays out of the main entry's static graph: browser builds never reach it).
 */
import type { Clock } from '../clock.js';
import { poolClosedError, TransportError } from '../errors/transport-error.js';
import type { ServeStatusOptions, StatusServer, StatusSource } from './status-server.js';

/** What the pool lends: its close hooks, so `pool.close()` closes the server too. */
export interface StatusHost {
  readonly closed: () => boolean;
  readonly onClose: Set<() => void | Promise<void>>;
}

export async function serveStatus(pool: StatusSource, clock: Clock, host: StatusHost, options: ServeStatusOptions): Promise<StatusServer> {
  const { port, windowMs } = options;
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65_535)) {
    throw new TransportError('INVALID_INPUT', 'port must be an integer from 0 to 65535', { context: { field: 'port' } });
  }
  if (windowMs !== undefined && !(windowMs > 0 && Number.isFinite(windowMs))) {
    throw new TransportError('INVALID_INPUT', 'windowMs must be a finite number > 0', { context: { field: 'windowMs' } });
  }
  if (host.closed()) throw poolClosedError();
  const { startStatusServer } = await import('./status-server.js');
  const server = await startStatusServer(pool, clock, options);
  const stop = () => server.close();
  // Closed while the module loaded or the socket bound: stop at once.
  if (host.closed()) await stop();
  else host.onClose.add(stop);
  const close = () => {
    host.onClose.delete(stop);
    return server.close();
  };
  return { port: server.port, url: server.url, close, [Symbol.asyncDispose]: close };
}
