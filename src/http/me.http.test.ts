import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/http-fixtures.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('GET /api/me', () => {
  it("says whom the caller's token stands for; null when anonymous; 401 for a token the server does not know", async () => {
    server = await startServer();
    expect(await server.api('GET', '/api/me', { token: 'bob' })).toMatchObject({
      status: 200,
      body: { userId: 'bob' },
    });
    expect(await server.api('GET', '/api/me')).toMatchObject({ status: 200, body: { userId: null } });
    expect(await server.api('GET', '/api/me', { token: 'nobody' })).toMatchObject({
      status: 401,
      body: { error: { code: 'unauthorized' } },
    });
  });
});
