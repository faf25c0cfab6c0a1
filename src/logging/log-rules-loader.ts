/**
 * The log rules in Node: imported statically, so the logger writes each line as its event
 * happens. The browser build replaces this module by `log-rules-loader.browser.ts`, which
 * loads them on demand (a page without a `logger` does not carry them).
 */
import { LOG_RULES } from './log-rules.js';

export type LogRules = typeof LOG_RULES;

/** The rules (a promise only in the browser build). */
export function loadLogRules(): LogRules | Promise<LogRules> {
  return LOG_RULES;
}
