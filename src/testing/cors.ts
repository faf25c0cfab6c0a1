/**
 * CORS for the fixture server, so a page in a real browser can call it: the answer headers
 * of every response, and the answer to a preflight (`OPTIONS`). Pure: request headers in,
 * response headers out.
 */

/** CORS settings of the fixture server. */
export interface FixtureServerCors {
  /**
   * The `Access-Control-Allow-Origin` value: an origin (`http://127.0.0.1:5173`) or `'*'`.
   * @default '*'
   */
  readonly allowOrigin?: string;
}

/** Headers a browser's script may read besides the safelisted ones (the pool reads `Retry-After`). */
const EXPOSED = 'retry-after, content-encoding, content-length';
/** How long a browser may cache a preflight answer, in seconds. */
const PREFLIGHT_MAX_AGE_S = '600';

/** Normalises the `cors` option: `true` is `{ allowOrigin: '*' }`, `false`/absent is off. */
export function corsSettings(option: boolean | FixtureServerCors | undefined): Required<FixtureServerCors> | undefined {
  if (option === undefined || option === false) return undefined;
  return { allowOrigin: option === true ? '*' : (option.allowOrigin ?? '*') };
}

/** Headers added to every answer (JSON-RPC results, 429s, HTTP errors, HTML). */
export function corsAnswerHeaders(settings: Required<FixtureServerCors>): Record<string, string> {
  const headers: Record<string, string> = {
    'access-control-allow-origin': settings.allowOrigin,
    'access-control-expose-headers': EXPOSED,
  };
  if (settings.allowOrigin !== '*') headers['vary'] = 'Origin';
  return headers;
}

/** The 204 answer to a preflight: POST allowed with the headers the page asked for. */
export function corsPreflightHeaders(settings: Required<FixtureServerCors>, requestedHeaders: string | undefined): Record<string, string> {
  return {
    ...corsAnswerHeaders(settings),
    'access-control-allow-methods': 'POST, OPTIONS',
    'access-control-allow-headers': requestedHeaders ?? 'content-type, authorization',
    'access-control-max-age': PREFLIGHT_MAX_AGE_S,
  };
}
