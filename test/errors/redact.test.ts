import { describe, expect, it } from 'vitest';
import { defaultEndpointId } from '../../src/config/normalize.js';
import { createRedactor, redactUrl, secretFragments } from '../../src/errors/redact.js';

describe('redactUrl', () => {
  it.each([
    ['https://mainnet.helius-rpc.com/?api-key=abc123', 'https://…helius-rpc.com'],
    ['https://user:pass@solana-mainnet.g.alchemy.com/v2/KEY', 'https://…alchemy.com'],
    ['https://eth.llamarpc.com', 'https://…llamarpc.com'],
    ['https://llamarpc.com/rpc/KEY', 'https://llamarpc.com'],
    ['http://127.0.0.1:8899/KEY?k=v', 'http://127.0.0.1'],
    ['http://[::1]:8545/', 'http://[::1]'],
    ['http://localhost:8545/KEY', 'http://localhost'],
    ['http://geth:8545/', 'http://geth'],
    // No ICANN suffix: only the last label (the public-suffix catch-all would print the key).
    ['http://subKEY123.localhost:8545/', 'http://…localhost'],
    ['http://a.secretKEY.internal/', 'http://…internal'],
    ['not a url', '<invalid url>'],
  ])('%s → %s', (url, shown) => {
    expect(redactUrl(url)).toBe(shown);
  });

  it.each([
    // With `localPort`, IPs and single-label hosts keep their port (two local nodes must differ), never path, query or userinfo.
    ['http://127.0.0.1:8899/KEY?k=v', 'http://127.0.0.1:8899'],
    ['http://user:SECRETPW@127.0.0.1:8900/v2/KEY?api-key=QUERYKEY', 'http://127.0.0.1:8900'],
    ['http://[::1]:8545/', 'http://[::1]:8545'],
    ['http://localhost:8545/KEY', 'http://localhost:8545'],
    ['http://localhost/KEY', 'http://localhost'],
    ['https://127.0.0.1:443/KEY', 'https://127.0.0.1'],
    ['http://geth:8545/', 'http://geth:8545'],
    // A named host's port is dropped with the rest, and so is a key-like subdomain of localhost.
    ['https://KEYSUB.helius-rpc.com:8443/KEY', 'https://…helius-rpc.com'],
    ['http://subKEY123.localhost:8545/', 'http://…localhost'],
  ])('with localPort: %s → %s', (url, shown) => {
    expect(redactUrl(url, { localPort: true })).toBe(shown);
  });

  it('derives default ids from the shown host and the index only', () => {
    expect(defaultEndpointId('https://KEY1.helius-rpc.com/v2/KEY2', 0)).toBe('helius-rpc.com-0');
    expect(defaultEndpointId('http://127.0.0.1:9/KEY', 3)).toBe('127.0.0.1-3');
    expect(defaultEndpointId('http://subKEY.localhost:1/', 1)).toBe('localhost-1');
    const unlisted = defaultEndpointId('http://a.SECRETKEY.local/', 2);
    expect(unlisted).toMatch(/^host-[0-9a-f]{8}-2$/);
  });

  it('treats every label of a host without an ICANN suffix as a possible secret', () => {
    const redact = createRedactor(secretFragments(['http://a.SECRETKEY.local:8545/path%ZZsegment']));
    expect(redact('node at a.SECRETKEY.local said no')).not.toContain('SECRETKEY');
  });
});

describe('every wire form of a secret is a fragment', () => {
  const redact = (urls: string[], headers: string[] = []) => createRedactor(secretFragments(urls, headers));

  it('the bare userinfo password and user, and the Basic credential derived from them', () => {
    const scrub = redact(['https://alice_user:hunter2pw@rpc.example.com/']);
    const basic = Buffer.from('alice_user:hunter2pw').toString('base64');
    expect(scrub(`pw=hunter2pw user=alice_user auth=Basic ${basic}`)).toBe('pw=<redacted> user=<redacted> auth=Basic <redacted>');
  });

  it('a percent-encoded userinfo password, as written and decoded', () => {
    const scrub = redact(['https://bob:p%40ss%2Fw0rd@rpc.example.com/']);
    expect(scrub('a p%40ss%2Fw0rd b p@ss/w0rd')).toBe('a <redacted> b <redacted>');
  });

  it('path and query keys as written, decoded and re-encoded', () => {
    const scrub = redact(['https://rpc.example.com/v2/k%2Bey%2F12?api_key=qu+ery%20key&x=1']);
    expect(scrub('k%2Bey%2F12 k+ey/12')).toBe('<redacted> <redacted>');
    expect(scrub('qu+ery%20key qu ery key qu%20ery%20key')).toBe('<redacted> <redacted> <redacted>');
  });

  it('a header value and the token inside it on its own', () => {
    const scrub = redact([], ['Bearer tok_3f9a8b7c6d']);
    expect(scrub('authorization: Bearer tok_3f9a8b7c6d; token tok_3f9a8b7c6d')).toBe('authorization: <redacted>; token <redacted>');
  });

  it('any URL in node text, configured or not', () => {
    expect(redact([])('see wss://elsewhere.example/other-key-42 and ftp://x.y/z')).toBe('see <redacted-url> and <redacted-url>');
  });
});
