import { sendBody, startRpcServer, type RpcServer } from './loopback.js';

/**
 * A round-robin load balancer on 127.0.0.1 in front of JSON-RPC nodes (anvils): each body
 * goes to the next backend in turn and its answer is relayed — what a provider's load
 * balancer does, nodes a block or two apart included. Bodies of an intercepted method (a
 * send the test replicates to its nodes itself) go to the test's handler instead. Closed by
 * `closeAllServers()` like every loopback server.
 */
export interface LoadBalancerOptions {
  /** Answers bodies of these methods instead of a backend (the JSON text it resolves is relayed). */
  readonly intercept?: Readonly<Record<string, (body: string) => Promise<string>>>;
  /** Told of each body before it is forwarded: to which backend, and its method. */
  readonly onForward?: (backend: number, method: string) => void;
}

export function startLoadBalancer(backends: readonly string[], options: LoadBalancerOptions = {}): Promise<RpcServer> {
  let next = 0;
  return startRpcServer(async (request, { res, body }) => {
    const intercepted = options.intercept?.[request.method];
    if (intercepted !== undefined) {
      sendBody(res, await intercepted(body));
      return;
    }
    const backend = next;
    next = (next + 1) % backends.length;
    options.onForward?.(backend, request.method);
    const upstream = await fetch(backends[backend]!, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(5_000) });
    sendBody(res, await upstream.text(), upstream.status);
  });
}
