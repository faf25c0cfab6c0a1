import { TransportError } from '../errors/transport-error.js';
import { assertEvmAddress } from './address.js';

/** Named block tags. */
export type EvmBlockTag = 'latest' | 'earliest' | 'pending' | 'safe' | 'finalized';

/** A block tag, or a block number (sent as a hex quantity). */
export type EvmBlockParameter = EvmBlockTag | bigint | number;

/** `0x` and hex digits of whole bytes (may be empty: `0x`). */
export type Hex = `0x${string}`;

const BLOCK_TAGS: readonly unknown[] = ['latest', 'earliest', 'pending', 'safe', 'finalized'];
const HEX_DATA = /^0x(?:[0-9a-fA-F]{2})*$/;
const HASH_32 = /^0x[0-9a-fA-F]{64}$/;

/** Throws `INVALID_INPUT` naming `field`; the message never echoes the value. */
export function invalidInput(field: string, expectation: string): never {
  throw new TransportError('INVALID_INPUT', `${field} must be ${expectation}`, { context: { field } });
}

/** A non-negative integer (`number` or `bigint`) as a JSON-RPC quantity, e.g. `0x1a`. */
export function quantity(value: unknown, field: string): Hex {
  if (typeof value === 'bigint' && value >= 0n) return `0x${value.toString(16)}`;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return `0x${value.toString(16)}`;
  return invalidInput(field, 'a non-negative integer (number or bigint)');
}

/** A block tag or number as a JSON-RPC block parameter. */
export function blockParam(block: unknown, field = 'blockTag'): string {
  if (typeof block === 'bigint' || typeof block === 'number') return quantity(block, field);
  if (BLOCK_TAGS.includes(block)) return block as EvmBlockTag;
  return invalidInput(field, 'a block tag or a non-negative block number');
}

export function checkHexData(value: unknown, field: string): Hex {
  if (typeof value !== 'string' || !HEX_DATA.test(value)) invalidInput(field, '0x and an even number of hex digits');
  return value as Hex;
}

export function checkHash(value: unknown, field: string): Hex {
  if (typeof value !== 'string' || !HASH_32.test(value)) invalidInput(field, '0x and 64 hex digits');
  return value as Hex;
}

/** A transaction to simulate (`call`) or estimate (`estimateGas`). Quantities as `bigint`/`number`. */
export interface EvmCallRequest {
  readonly to?: string;
  readonly from?: string;
  /** Calldata. */
  readonly data?: string;
  /** Wei. */
  readonly value?: bigint | number;
  readonly gas?: bigint | number;
  readonly gasPrice?: bigint | number;
  readonly maxFeePerGas?: bigint | number;
  readonly maxPriorityFeePerGas?: bigint | number;
  readonly nonce?: bigint | number;
}

const QUANTITY_FIELDS = ['value', 'gas', 'gasPrice', 'maxFeePerGas', 'maxPriorityFeePerGas', 'nonce'] as const;

/** Validates a call request and writes it as JSON-RPC expects (hex quantities, `input` omitted: `data` is understood everywhere). */
export function callRequestParam(request: unknown, requireTo: boolean): Record<string, string> {
  if (typeof request !== 'object' || request === null) return invalidInput('request', 'an object');
  const r = request as Record<string, unknown>;
  const out: Record<string, string> = {};
  if (r['to'] !== undefined) {
    assertEvmAddress(r['to'], 'request.to');
    out['to'] = r['to'];
  } else if (requireTo) invalidInput('request.to', 'an EVM address');
  if (r['from'] !== undefined) {
    assertEvmAddress(r['from'], 'request.from');
    out['from'] = r['from'];
  }
  if (r['data'] !== undefined) out['data'] = checkHexData(r['data'], 'request.data');
  for (const field of QUANTITY_FIELDS) {
    if (r[field] !== undefined) out[field] = quantity(r[field], `request.${field}`);
  }
  if (r['gasPrice'] !== undefined && (r['maxFeePerGas'] !== undefined || r['maxPriorityFeePerGas'] !== undefined)) {
    invalidInput('request.gasPrice', 'absent when maxFeePerGas or maxPriorityFeePerGas is set');
  }
  return out;
}
