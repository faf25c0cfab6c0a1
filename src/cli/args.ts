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

/**
 * `--duration -5` → `--duration=-5`: a value that starts with one dash (a negative number,
 * `-XYZ`) goes to the option before it, so the option's own check answers with a plain
 * range error instead of parseArgs' "argument is ambiguous". `-h` stays a flag.
 */
export function foldDashValues(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const next = args[i + 1];
    if (arg === '--') {
      out.push(...args.slice(i));
      break;
    }
    if (/^--[a-z][\w-]*$/.test(arg) && next !== undefined && /^-(?!-)./.test(next) && next !== '-h') {
      out.push(`${arg}=${next}`);
      i++;
    } else {
      out.push(arg);
    }
  }
  return out;
}

/** parseArgs' messages in plain words (an option left without its value); other errors unchanged. */
export function plainArgumentError(error: unknown): unknown {
  const code: unknown = typeof error === 'object' && error !== null ? Reflect.get(error, 'code') : undefined;
  const message = error instanceof Error ? error.message : '';
  const option = /Option '(--[\w-]+)/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option !== undefined && /ambiguous|argument missing/.test(message)) {
    return new UsageError(`${option} needs a value`);
  }
  return error;
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
