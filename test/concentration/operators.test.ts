import { describe, expect, it } from 'vitest';
import { operatorOf } from '../../src/concentration/operators.js';

describe('operatorOf', () => {
  it('groups by registrable domain and drops subdomain keys, path, query and userinfo', () => {
    expect(operatorOf('https://abc123key.mainnet.helius-rpc.com/?api-key=XYZ')).toBe('helius-rpc.com');
    expect(operatorOf('https://solana-mainnet.g.alchemy.com/v2/SECRETKEY')).toBe('alchemy.com');
    expect(operatorOf('https://user:p4ssw0rd@rpc.Example.COM.:8443/path/key?token=abc')).toBe('example.com');
  });

  it('understands multi-part public suffixes', () => {
    expect(operatorOf('https://foo.co.uk')).toBe('foo.co.uk');
    expect(operatorOf('https://rpc.eu.foo.co.uk/x')).toBe('foo.co.uk');
  });

  it('uses ICANN suffixes only, so a hosted customer label never becomes part of the name', () => {
    // With the PSL private section these would be `mykey123.workers.dev` and `myapp.herokuapp.com`.
    expect(operatorOf('https://mykey123.workers.dev/')).toBe('workers.dev');
    expect(operatorOf('https://myapp.herokuapp.com/')).toBe('herokuapp.com');
    expect(operatorOf('https://abc.solana-mainnet.quiknode.pro/deadbeef/')).toBe('quiknode.pro');
  });

  it('treats IPv4 and IPv6 literals as their own operator, ignoring ports', () => {
    expect(operatorOf('http://127.0.0.1:8899')).toBe('127.0.0.1');
    expect(operatorOf('http://127.0.0.1:8900/other')).toBe('127.0.0.1');
    expect(operatorOf('http://10.0.0.7')).toBe('10.0.0.7');
    expect(operatorOf('http://0x7f.1:8545')).toBe('127.0.0.1');
    expect(operatorOf('http://[::1]:8899')).toBe('[::1]');
    expect(operatorOf('http://[2001:DB8::1]/rpc')).toBe('[2001:db8::1]');
    expect(operatorOf('http://[::ffff:127.0.0.1]:8545')).toBe('127.0.0.1');
  });

  it('treats localhost and names under .localhost as one operator', () => {
    expect(operatorOf('http://localhost:8899')).toBe('localhost');
    expect(operatorOf('http://LOCALHOST:1/')).toBe('localhost');
    expect(operatorOf('http://validator.localhost:8899')).toBe('localhost');
  });

  it('lets an override win, trimmed, and ignores a blank one', () => {
    expect(operatorOf('http://127.0.0.1:8899', 'node-a')).toBe('node-a');
    expect(operatorOf('https://x.helius-rpc.com', '  Helius ')).toBe('Helius');
    expect(operatorOf('https://x.helius-rpc.com', '   ')).toBe('helius-rpc.com');
  });

  it('names hosts without a registrable domain by a stable hash that does not contain the host', () => {
    const single = operatorOf('http://secretkeyhost:8545/');
    expect(single).toMatch(/^host-[0-9a-f]{8}$/);
    expect(single).not.toContain('secretkeyhost');
    // Same host, other port and path: same operator.
    expect(operatorOf('http://secretkeyhost:9000/x')).toBe(single);
    // Another host: another singleton.
    expect(operatorOf('http://my-node:8545')).not.toBe(single);
    // A bare public suffix has no registrable domain either.
    expect(operatorOf('https://co.uk/')).toMatch(/^host-[0-9a-f]{8}$/);
    // Unparseable input never echoes the input.
    const broken = operatorOf('not a url with KEY123456');
    expect(broken).toMatch(/^host-[0-9a-f]{8}$/);
    expect(operatorOf('not a url with KEY123456')).toBe(broken);
  });

  it('never returns a path, query, userinfo or subdomain label', () => {
    const url = 'https://alice:SECRETPW@k3y0000.rpc.provider.io:444/v1/PATHKEY?api-key=QUERYKEY#frag';
    const operator = operatorOf(url);
    expect(operator).toBe('provider.io');
    for (const secret of ['alice', 'SECRETPW', 'k3y0000', 'rpc.', 'PATHKEY', 'QUERYKEY', '444', 'frag']) {
      expect(operator).not.toContain(secret);
    }
  });
});
