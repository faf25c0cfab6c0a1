/**
 * `npm run bench`: every benchmark side by side in one run. Never part of `npm test`.
 * Pass `--json <file>` to also write the raw results.
 */
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { benchAdmission } from './admission.bench.js';

const args = process.argv.slice(2);
const jsonIndex = args.indexOf('--json');
const jsonPath = jsonIndex >= 0 ? args[jsonIndex + 1] : undefined;

console.log(`# sturdy-rpc benchmarks\n\nNode ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}\n`);
const admission = await benchAdmission();
console.log('## Admission (acquire + release)\n');
console.log(admission.markdown, '\n');

if (jsonPath) writeFileSync(jsonPath, JSON.stringify({ admission: admission.results }, null, 2));
