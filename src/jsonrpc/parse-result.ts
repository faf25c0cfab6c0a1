import type * as z from 'zod/mini';
import { TransportError } from '../errors/transport-error.js';

/**
 * Validates a JSON-RPC `result` against `schema`, or throws `TransportError`
 * `INVALID_RESPONSE` whose `reason` names the failing path and check
 * (e.g. `value: too_big`) — never the raw value, which may be huge or hostile.
 */
export function parseResult<S extends z.ZodMiniType>(method: string, schema: S, result: unknown): z.output<S> {
  const parsed = schema.safeParse(result);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = issue === undefined || issue.path.length === 0 ? 'result' : issue.path.map(String).join('.');
  const reason = `${path}: ${issue?.code ?? 'invalid'}`;
  throw new TransportError('INVALID_RESPONSE', `${method} returned an invalid result (${reason})`, {
    context: { reason },
    method,
    cause: parsed.error,
  });
}
