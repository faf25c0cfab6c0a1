import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe } from 'vitest';

/** The absolute path of `name` on PATH (or `name` itself when it is a path), or undefined. */
export function findBinary(name: string): string | undefined {
  const candidates = name.includes('/') ? [name] : (process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, name));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * `describe` for a suite that needs a system binary (`redis-server`, `chromium`). Runs it when
 * the binary is there. Otherwise prints a visible skip naming the install command — and under
 * `CI=true` registers a failing suite instead: in CI a skip is a failure.
 */
export function describeWithBinary(name: string, install: string, title: string, body: (path: string) => void): void {
  const path = findBinary(name);
  if (path !== undefined) {
    describe(title, () => body(path));
    return;
  }
  const why = `'${name}' is not installed; install it with: ${install}`;
  if (process.env.CI === 'true') {
    describe(title, () => {
      throw new Error(`${why} (CI=true: a skipped suite is a failure)`);
    });
    return;
  }
  process.stderr.write(`\n[sturdy-rpc tests] SKIPPED "${title}": ${why}\n`);
  describe.skip(`${title} — SKIPPED: ${why}`, () => body(name));
}
