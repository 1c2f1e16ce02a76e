import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import helmet from 'helmet';
import { createHttpApp } from './create-http-app.js';
import { API_SECURITY_HEADERS } from './install-security-headers.js';

/** The headers helmet's own middleware, run on a real response, sends for `API_SECURITY_HEADERS`. */
async function helmetHeaders(): Promise<IncomingHttpHeaders> {
  const middleware = helmet(API_SECURITY_HEADERS);
  const server = createServer((req, res) => middleware(req, res, () => res.end()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise((resolve, reject) => {
      request({ port, host: '127.0.0.1' }, (res) => {
        res.resume();
        resolve(res.headers);
      })
        .on('error', reject)
        .end();
    });
  } finally {
    server.close();
  }
}

describe('installSecurityHeaders', () => {
  it('answers with the headers helmet sets, computed once', async () => {
    const expected = await helmetHeaders();
    const app = createHttpApp();
    app.get('/probe', async () => ({ ok: true }));
    try {
      const first = await app.inject({ method: 'GET', url: '/probe' });
      const second = await app.inject({ method: 'GET', url: '/probe' });
      const ignored = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);
      const names = Object.keys(expected).filter((name) => !ignored.has(name));
      assert.ok(names.includes('content-security-policy'));
      for (const response of [first, second]) {
        for (const name of names) assert.equal(response.headers[name], expected[name], name);
      }
    } finally {
      await app.close();
    }
  });
});
