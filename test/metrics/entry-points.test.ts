import { describe, expect, it } from 'vitest';
import { reachableSpecifiers } from '../helpers/import-graph.js';

/** prom-client and @opentelemetry/api are optional peers: only their own entry points may import them. */
const PEERS = (s: string) => s === 'prom-client' || s.startsWith('@opentelemetry/');

describe('observability entry points', () => {
  it("the main entry's import graph holds neither prom-client nor @opentelemetry/*", () => {
    const specifiers = [...reachableSpecifiers('index.ts')];
    expect(specifiers.length).toBeGreaterThan(20);
    expect(specifiers.filter(PEERS)).toEqual([]);
    // pool.serveStatus() loads its server on demand: the main entry's static graph has no HTTP server.
    expect(specifiers.filter((s) => s === 'node:http' || s === 'node:net')).toEqual([]);
  });

  it('sturdy-rpc/metrics/prometheus imports prom-client and no OpenTelemetry; sturdy-rpc/otel imports only @opentelemetry/api', () => {
    const prometheus = [...reachableSpecifiers('metrics/prometheus.ts')].filter(PEERS);
    expect(prometheus).toEqual(['prom-client']);
    const otel = [...reachableSpecifiers('otel/index.ts')].filter(PEERS);
    expect(otel).toEqual(['@opentelemetry/api']);
  });
});
