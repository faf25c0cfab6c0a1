import { parseArgs } from 'node:util';
import { createSeededRandom } from '../clock.js';
import { createFixtureServer, type FixtureServer } from '../testing/fixture-server.js';
import { loadFixtures, type Fixture } from '../testing/fixtures.js';
import { integerInRange, UsageError, type CliCommand } from './args.js';
import { behavioursByMethod, BEHAVIOUR_SPEC_HELP, parseBehaviourSpec } from './behaviour-spec.js';

const HELP = `Usage: sturdy-rpc serve-fixtures --dir <dir> [options]

Serves the fixture files in <dir> (the fixtures/ format) as a JSON-RPC node over HTTP, for
other programs' tests: a method is answered from its fixture (the one whose params match,
else the first), with the request's id; unknown methods get JSON-RPC -32601. Prints
'listening on http://<host>:<port>/' once ready; stops cleanly on SIGINT or SIGTERM and
prints the requests it received per method.

Options:
  --dir <dir>            directory of fixture *.json files (required)
  --port <n>             port, 0 picks a free one (default 0)
  --host <host>          interface (default 127.0.0.1)
  --behaviour <spec>     misbehave (repeatable; applied in order, the first answer-replacing one wins)
  --seed <n>             seed for p=… and latency ranges (default 1)
  -h, --help             show this help

${BEHAVIOUR_SPEC_HELP}

Exit codes: 0 stopped by a signal; 1 the server could not listen; 2 bad arguments or fixtures.`;

function loadOrFail(dir: string): Fixture[] {
  try {
    return loadFixtures(dir);
  } catch (error) {
    throw new UsageError(`--dir: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function describeMethods(fixtures: readonly Fixture[]): string {
  const methods = new Set(fixtures.map((f) => f.request.method));
  return `${fixtures.length} fixture${fixtures.length === 1 ? '' : 's'} for ${methods.size} method${methods.size === 1 ? '' : 's'}`;
}

/** Resolves on the first SIGINT or SIGTERM, removing both listeners. */
function nextStopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

export const serveFixturesCommand: CliCommand = {
  name: 'serve-fixtures',
  summary: 'serve a fixtures directory as a fake JSON-RPC node, with optional faults',
  help: HELP,
  async run(args) {
    const { values } = parseArgs({
      args: [...args],
      options: {
        dir: { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        behaviour: { type: 'string', multiple: true },
        behavior: { type: 'string', multiple: true },
        seed: { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    });
    if (values.dir === undefined) throw new UsageError('--dir is required');
    const port = integerInRange(values.port, 'port', 0, 0, 65_535);
    const host = values.host ?? '127.0.0.1';
    if (host === '') throw new UsageError('--host must not be empty');
    const seed = integerInRange(values.seed, 'seed', 1, 0, 2 ** 32 - 1);
    const specs = [...(values.behaviour ?? []), ...(values.behavior ?? [])];
    const behaviours = behavioursByMethod(specs.map(parseBehaviourSpec));
    const fixtures = loadOrFail(values.dir);

    const stopped = nextStopSignal();
    let server: FixtureServer;
    try {
      server = await createFixtureServer({ fixtures, behaviours, port, host, random: createSeededRandom(seed) });
    } catch (error) {
      if (error instanceof RangeError) throw new UsageError(error.message);
      const code: unknown = typeof error === 'object' && error !== null ? Reflect.get(error, 'code') : undefined;
      throw new Error(`cannot listen on ${host}:${port}${typeof code === 'string' ? ` (${code})` : ''}`, { cause: error });
    }
    console.log(`listening on ${server.url}/`);
    console.log(`serving ${describeMethods(fixtures)} from ${values.dir}${specs.length > 0 ? `; behaviours: ${specs.join(' ')}` : ''}`);

    const signal = await stopped;
    await server.close();
    const counts = Object.entries(server.countByMethod())
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([method, n]) => `${method || '(unparsed)'} ${n}`);
    console.log(`stopped (${signal}); ${server.count()} request${server.count() === 1 ? '' : 's'}${counts.length > 0 ? `: ${counts.join(', ')}` : ''}`);
    return 0;
  },
};
