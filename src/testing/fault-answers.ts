/**
 * The bodies and rewrites behind the fixture server's behaviours: 429 and 5xx answers,
 * HTML pages, truncation, a different genesis hash or chain id and lagging slots.
 */
import type { Clock } from '../clock.js';
import { parseJsonExact, stringifyJson } from '../jsonrpc/exact-json.js';
import { SOLANA_GENESIS_HASHES } from '../solana/clusters.js';
import type { HttpErrorBehaviour, LagBehaviour, RateLimitBehaviour, TransformBehaviour, WrongGenesisBehaviour } from './behaviours.js';
import { errorBody, jsonAnswer, resultBody, type JsonRpcCall, type ReplayAnswer } from './replay.js';

/** Genesis hash of `anvil --timestamp 1700000000` (REFERENCE.md): a real chain that is not mainnet. */
export const ANVIL_GENESIS_HASH = '0xc56b8342e33b57477139f45874ae699b6fe1ca1a65d089b78c34dabc3206e07b';
/** Agave's default `--health-check-slot-distance` (`DELINQUENT_VALIDATOR_SLOT_DISTANCE`). */
export const DEFAULT_UNHEALTHY_ABOVE_SLOTS = 128;

const STATUS_TEXT: Readonly<Record<number, string>> = {
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Temporarily Unavailable',
  504: 'Gateway Time-out',
};

function nginxPage(status: number): string {
  const title = `${status} ${STATUS_TEXT[status] ?? 'Error'}`;
  return `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`;
}

const HTML_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'content-type': 'text/html' });

/** HTTP 429 with `Retry-After` as the behaviour asks, on the server's wall clock. */
export function rateLimitAnswer(behaviour: RateLimitBehaviour, id: unknown, clock: Clock): ReplayAnswer {
  const seconds = behaviour.retryAfterSeconds ?? 1;
  const headers: Record<string, string> = {};
  const format = behaviour.retryAfter ?? 'seconds';
  if (format === 'seconds') {
    headers['retry-after'] = String(seconds);
  } else if (format === 'http-date') {
    // HTTP-dates have whole seconds: anchor both headers on the current whole second.
    const nowSecondMs = Math.floor(clock.wallNow() / 1000) * 1000;
    headers['date'] = new Date(nowSecondMs).toUTCString();
    headers['retry-after'] = new Date(nowSecondMs + Math.ceil(seconds) * 1000).toUTCString();
  }
  if (behaviour.body === 'text') {
    return { status: 429, headers: { ...headers, 'content-type': 'text/plain' }, body: 'Too Many Requests' };
  }
  return { status: 429, headers: { ...headers, 'content-type': 'application/json' }, body: errorBody(id, 429, 'Too many requests') };
}

/** An HTTP error status with an nginx page or a JSON-RPC -32603 body. */
export function httpErrorAnswer(behaviour: HttpErrorBehaviour, id: unknown): ReplayAnswer {
  const status = behaviour.status ?? 503;
  if (behaviour.body === 'json') return jsonAnswer(errorBody(id, -32603, STATUS_TEXT[status] ?? 'Internal error'), status);
  return { status, headers: HTML_HEADERS, body: nginxPage(status) };
}

/** A CDN interstitial page with status 200. */
export function htmlAnswer(): ReplayAnswer {
  return {
    status: 200,
    headers: HTML_HEADERS,
    body: '<!DOCTYPE html>\n<html lang="en-US">\n<head><title>Just a moment...</title></head>\n<body><h1>Checking your browser before accessing the RPC endpoint.</h1></body>\n</html>\n',
  };
}

/** The answer with its body cut to `keepRatio` of its characters. */
export function truncateAnswer(answer: ReplayAnswer, keepRatio = 0.5): ReplayAnswer {
  return { status: answer.status, headers: answer.headers, body: answer.body.slice(0, Math.floor(answer.body.length * keepRatio)) };
}

function parseObject(body: string): Record<string, unknown> | undefined {
  try {
    const value = parseJsonExact(body);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function lower(value: unknown, by: number): unknown {
  if (typeof value === 'bigint') return value > BigInt(by) ? value - BigInt(by) : 0n;
  if (typeof value === 'number' && Number.isInteger(value)) return Math.max(0, value - by);
  return value;
}

function lowerHex(value: unknown, by: number): unknown {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]+$/.test(value)) return value;
  const next = BigInt(value) - BigInt(by);
  return `0x${(next > 0n ? next : 0n).toString(16)}`;
}

/** The same answer with `result` replaced (`undefined` result: unchanged). */
function withResult(answer: ReplayAnswer, map: (result: unknown) => unknown): ReplayAnswer {
  const envelope = parseObject(answer.body);
  if (envelope === undefined || !('result' in envelope)) return answer;
  const result = map(envelope['result']);
  if (result === envelope['result']) return answer;
  return { ...answer, body: stringifyJson({ ...envelope, result }) };
}

function isGenesisBlockRequest(call: JsonRpcCall): boolean {
  const first: unknown = Array.isArray(call.params) ? call.params[0] : undefined;
  return first === '0x0' || first === 'earliest' || first === 0;
}

function wrongGenesis(call: JsonRpcCall, answer: ReplayAnswer, behaviour: WrongGenesisBehaviour): ReplayAnswer {
  if (call.method === 'getGenesisHash') {
    return jsonAnswer(resultBody(call.id, stringifyJson(behaviour.solanaGenesisHash ?? SOLANA_GENESIS_HASHES.devnet)));
  }
  if (call.method === 'eth_getBlockByNumber' && isGenesisBlockRequest(call)) {
    const hash = behaviour.evmGenesisHash ?? ANVIL_GENESIS_HASH;
    if (answer.fixture !== undefined) {
      const rewritten = withResult(answer, (result) => (isRecord(result) ? { ...result, hash } : result));
      if (rewritten !== answer) return rewritten;
    }
    const block = { number: '0x0', hash, parentHash: `0x${'0'.repeat(64)}` };
    return jsonAnswer(resultBody(call.id, stringifyJson(block)));
  }
  if (call.method === 'eth_chainId' && behaviour.evmChainId !== undefined) {
    return jsonAnswer(resultBody(call.id, stringifyJson(`0x${behaviour.evmChainId.toString(16)}`)));
  }
  return answer;
}

function lag(call: JsonRpcCall, answer: ReplayAnswer, behaviour: LagBehaviour): ReplayAnswer {
  const slots = behaviour.slots;
  switch (call.method) {
    case 'getHealth':
      if (slots <= (behaviour.unhealthyAboveSlots ?? DEFAULT_UNHEALTHY_ABOVE_SLOTS)) return answer;
      return jsonAnswer(errorBody(call.id, -32005, `Node is behind by ${slots} slots`, { numSlotsBehind: slots }));
    case 'getSlot':
    case 'getBlockHeight':
      return withResult(answer, (result) => lower(result, slots));
    case 'eth_blockNumber':
      return withResult(answer, (result) => lowerHex(result, slots));
    default:
      return withResult(answer, (result) => {
        if (!isRecord(result) || !isRecord(result['context'])) return result;
        return { ...result, context: { ...result['context'], slot: lower(result['context']['slot'], slots) } };
      });
  }
}

/** The fixture server's `head` option: the node's head at `headNow`, answered for head-bearing calls. */
export function headAnswer(call: JsonRpcCall, answer: ReplayAnswer | undefined, headNow: bigint): ReplayAnswer | undefined {
  switch (call.method) {
    case 'getSlot':
      return jsonAnswer(resultBody(call.id, headNow.toString()));
    case 'eth_blockNumber':
      return jsonAnswer(resultBody(call.id, stringifyJson(`0x${headNow.toString(16)}`)));
    default:
      // Every Solana RpcResponse answer carries the slot it was read at.
      return (
        answer &&
        withResult(answer, (result) => {
          if (!isRecord(result) || !isRecord(result['context'])) return result;
          return { ...result, context: { ...result['context'], slot: headNow } };
        })
      );
  }
}

/** Applies the transforming behaviours to one call's normal answer. */
export function transformAnswer(call: JsonRpcCall, answer: ReplayAnswer, transforms: readonly TransformBehaviour[]): ReplayAnswer {
  let current = answer;
  for (const behaviour of transforms) {
    current = behaviour.type === 'lag' ? lag(call, current, behaviour) : wrongGenesis(call, current, behaviour);
  }
  return current;
}
