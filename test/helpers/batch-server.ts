import type http from 'node:http';
import type { ReceivedRequest, RpcExchange, RpcHandler, RpcServer } from './loopback.js';

/**
 * JSON-RPC batches at the loopback server: `eachItem(handler)` answers an array body by
 * running a single-request handler once per item (each writes its answer to a stand-in
 * response) and sending the answers back as one array, like a real node. The server's own
 * `count()` stays the number of HTTP requests; {@link itemsOf} reads the items inside.
 */

/** One item of a received body. */
export interface BodyItem {
  readonly method: string;
  readonly params: unknown;
  readonly id: unknown;
}

function parse(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

function toItem(value: unknown): BodyItem {
  const item = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  return { method: typeof item['method'] === 'string' ? item['method'] : '', params: item['params'], id: item['id'] };
}

/** The items of each HTTP request a server received (a single request is a list of one). */
export function itemsOf(server: RpcServer): BodyItem[][] {
  return server.received.map((request) => {
    const parsed = parse(request.body);
    return Array.isArray(parsed) ? parsed.map(toItem) : [toItem(parsed)];
  });
}

/** Every item the server received, of `method` or all, across its HTTP requests. */
export function itemCount(server: RpcServer, method?: string): number {
  return itemsOf(server)
    .flat()
    .filter((item) => method === undefined || item.method === method).length;
}

/** Runs `handler` for one item and captures the body it would have sent (undefined when it sent nothing). */
function answerOf(handler: RpcHandler, item: BodyItem, outer: ReceivedRequest, exchange: RpcExchange, body: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const stand = {
      headersSent: false,
      writeHead: () => stand,
      setHeader: () => stand,
      write: () => true,
      end: (text?: string) => resolve(text === undefined || text === '' ? undefined : String(text)),
    } as unknown as http.ServerResponse;
    const request: ReceivedRequest = { ...item, path: outer.path, headers: outer.headers, body };
    Promise.resolve(handler(request, { ...exchange, res: stand })).catch(() => resolve(undefined));
  });
}

/**
 * A handler that answers batches item by item with `handler` (in the order `order` gives,
 * to show attribution is by id), and single requests with `handler` itself.
 */
export function eachItem(handler: RpcHandler, order: (answers: string[]) => string[] = (answers) => answers): RpcHandler {
  return async (request, exchange) => {
    const parsed = parse(exchange.body);
    if (!Array.isArray(parsed)) return handler(request, exchange);
    const answers = await Promise.all(parsed.map((value) => answerOf(handler, toItem(value), request, exchange, JSON.stringify(value))));
    const body = `[${order(answers.filter((text): text is string => text !== undefined)).join(',')}]`;
    exchange.res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    exchange.res.end(body);
  };
}
