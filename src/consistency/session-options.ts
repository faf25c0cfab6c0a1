import type { RequestOptions } from '../api/request-options.js';

/** Options of one call through a session. */
export interface SessionRequestOptions extends RequestOptions {
  /**
   * `false`: this call is not held to the session's floor (no `minContextSlot`, no
   * `minHead`), e.g. a read that may be older than what the session saw. Its answer still
   * raises the floor. @default true
   */
  readonly floor?: boolean | undefined;
}
