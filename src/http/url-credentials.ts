import { base64 } from '@scure/base';

/** `decodeURIComponent` that never throws on a malformed escape (a URL may hold one). */
export function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * The `Authorization` value that a URL's userinfo becomes on the wire
 * (`Basic base64(user:password)`, UTF-8), or undefined without userinfo. Both executors
 * send it, and redaction treats it as a secret: a node that echoes request headers would
 * otherwise hand the credential back in its error text.
 */
export function basicAuthorizationOf(url: URL): string | undefined {
  if (url.username === '' && url.password === '') return undefined;
  const credentials = `${safeDecode(url.username)}:${safeDecode(url.password)}`;
  return `Basic ${base64.encode(new TextEncoder().encode(credentials))}`;
}
