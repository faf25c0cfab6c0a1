/**
 * Shared argument handling of the `sturdy-rpc` commands: the expected-error class (one line,
 * the command's usage, exit code 2) and small validators whose messages never echo a value
 * that could hold a secret (URLs are named by position, not printed).
 */

/** An expected error about the command line: a one-line message, usage, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** True for errors that mean "bad arguments" (ours and `node:util` parseArgs's). */
export function isUsageError(error: unknown): boolean {
  if (error instanceof UsageError) return true;
  const code: unknown = typeof error === 'object' && error !== null ? Reflect.get(error, 'code') : undefined;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}

/** `value` as a positive number, `fallback` when absent. */
export function positiveNumber(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0) throw new UsageError(`--${name} must be a positive number`);
  return n;
}

/** `value` as an integer in [min, max], `fallback` when absent. */
export function integerInRange(value: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < min || n > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}`);
  }
  return n;
}

/**
 * Checks that `value` is an http(s) URL. The message names the flag and its position only:
 * the URL itself may carry an API key.
 */
export function httpUrl(value: string, name: string, position: number): string {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new UsageError(`--${name} #${position} is not a valid URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new UsageError(`--${name} #${position} must be an http:// or https:// URL`);
  }
  return value;
}

/** A command of the CLI: its help text and how it runs. */
export interface CliCommand {
  readonly name: string;
  /** One line for the overall usage. */
  readonly summary: string;
  /** The command's full help (`sturdy-rpc <name> --help`). */
  readonly help: string;
  /** Runs with the arguments after the command name; resolves to the exit code. */
  run(args: readonly string[]): Promise<number>;
}
