#!/usr/bin/env node
import { createRedactor, secretFragments } from '../errors/redact.js';
import { readFileSync } from 'node:fs';
import { foldDashValues, isUsageError, plainArgumentError, UsageError, type CliCommand } from './args.js';
import { demoCommand } from './demo-command.js';
import { probeCommand } from './probe-command.js';
import { recordCommand } from './record-command.js';
import { serveFixturesCommand } from './serve-fixtures-command.js';
import { topCommand } from './top-command.js';

const COMMANDS: readonly CliCommand[] = [demoCommand, probeCommand, serveFixturesCommand, recordCommand, topCommand];

const USAGE = `Usage: sturdy-rpc <command> [options]

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(15)} ${c.summary}`).join('\n')}

Run 'sturdy-rpc <command> --help' for a command's options.

Options:
  -h, --help       show this help
  -V, --version    print the version`;

/** The installed package's version (package.json sits two levels up from src/cli/ and dist/cli/). */
function version(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return String(manifest.version);
}

/** Every `--url` value on the command line, for scrubbing error lines (defence in depth). */
function urlArguments(argv: readonly string[]): string[] {
  const urls: string[] = [];
  argv.forEach((arg, i) => {
    if (arg === '--url' && argv[i + 1] !== undefined) urls.push(argv[i + 1]!);
    else if (arg.startsWith('--url=')) urls.push(arg.slice('--url='.length));
  });
  return urls;
}

/** Prints an error as one line (never a stack trace, never a URL given on the command line); returns the exit code. */
function reportError(error: unknown, command: CliCommand | undefined, argv: readonly string[]): number {
  const usage = isUsageError(error);
  const redact = createRedactor(secretFragments(urlArguments(argv)));
  const message = error instanceof Error ? error.message : String(error);
  console.error(`${command === undefined ? 'sturdy-rpc' : `sturdy-rpc ${command.name}`}: ${redact(message).replace(/\s+/g, ' ').trim()}`);
  if (usage) console.error(`\n${command?.help ?? USAGE}`);
  return usage ? 2 : 1;
}

async function main(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  let command: CliCommand | undefined;
  try {
    if (name === undefined) {
      console.error(USAGE);
      return 2;
    }
    if (name === '-h' || name === '--help' || name === 'help') {
      console.log(USAGE);
      return 0;
    }
    if (name === '-V' || name === '--version') {
      console.log(version());
      return 0;
    }
    command = COMMANDS.find((c) => c.name === name);
    if (command === undefined) throw new UsageError(`unknown command '${name}'`);
    const options = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
    if (options.includes('-h') || options.includes('--help')) {
      console.log(command.help);
      return 0;
    }
    return await command.run(foldDashValues(rest));
  } catch (error) {
    return reportError(plainArgumentError(error), command, argv);
  }
}

// The library's timers (backoff, cooldown, admission waits) are unref'd so that they never
// keep a process alive on their own; while a command runs, this handle does.
const keepAlive = setInterval(() => undefined, 1 << 30);
main(process.argv.slice(2))
  .then((code) => {
    process.exitCode = code;
  })
  .finally(() => clearInterval(keepAlive));
