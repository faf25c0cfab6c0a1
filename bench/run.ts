/**
 * `npm run bench`: every benchmark side by side in one run. Never part of `npm test`.
 * Pass `--json <file>` to also write the raw results.
 */
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { benchAdmission } from './admission.bench.js';
import { benchHttp } from './http.bench.js';
import { benchJson } from './json.bench.js';
import { benchSelection } from './selection.bench.js';

const args = process.argv.slice(2);
const jsonIndex = args.indexOf('--json');
const jsonPath = jsonIndex >= 0 ? args[jsonIndex + 1] : undefined;

console.log(`# sturdy-rpc benchmarks\n\nNode ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}\n`);
const admission = await benchAdmission();
console.log('## Admission (acquire + release)\n');
console.log(admission.markdown, '\n');

const selection = await benchSelection();
console.log('## Selection per admission (filter + band + cap + rotation + reputation record)\n');
console.log(selection.markdown, '\n');

const json = await benchJson();
console.log('## Exact-integer JSON parsing\n');
console.log(json.markdown, '\n');

const http = await benchHttp();
console.log('## HTTP: pool.request vs raw undici Pool.request (same loopback server, separate process)\n');
console.log(http.markdown, '\n');

if (jsonPath) writeFileSync(jsonPath, JSON.stringify({ admission: admission.results, json: json.results, http: http.results }, null, 2));
