/**
 * The browser build's log rules, loaded when a pool with a `logger` is built: `log-rules.ts`
 * is reached only by this dynamic `import()`, so a page without a logger does not carry it.
 * Until the rules arrive the logger holds the events it hears and writes them in order then
 * (`pool-logger.ts`): a line comes a moment later, never lost, never out of order.
 */
import type { LOG_RULES } from './log-rules.js';

export type LogRules = typeof LOG_RULES;

let loading: Promise<LogRules> | undefined;

/** The rules' load, started once (forgotten when it fails: the next pool loads again). */
export function loadLogRules(): Promise<LogRules> {
  loading ??= import('./log-rules.js').then(
    (module) => module.LOG_RULES,
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}
