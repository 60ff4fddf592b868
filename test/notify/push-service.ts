/**
 * A Web Push service on loopback for the push tests: it takes each push as a real one would (RFC 8030),
 * checks its VAPID header (RFC 8292: an ES256 JWT for this origin, signed by the key it names) and
 * decrypts it (RFC 8291, aes128gcm) with the subscriber's private key and auth secret, which the test made
 * itself as a browser would.
 */
import { createECDH, createPublicKey, randomBytes, type ECDH } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import ece from 'http_ece';
import { jwtVerify } from 'jose';

export interface ReceivedPush {
  /** Which subscriber it was for (the endpoint's last segment). */
  device: string;
  headers: IncomingHttpHeaders;
  /** The decrypted payload, parsed. */
  payload: {
    title: string;
    body: string;
    url: string;
    link?: string;
    actions: Array<{ action: string; title: string; answer: unknown }>;
    tag: string;
    settled?: boolean;
  };
  /** The VAPID public key the request named (`k=`) and the JWT's claims, once verified. */
  vapidKey: string;
  claims: { aud?: unknown; sub?: unknown; exp?: unknown };
  /** The status this service answered with. */
  status: number;
}

interface Device {
  ecdh: ECDH;
  auth: Buffer;
}

/** A P-256 public key (65 bytes, uncompressed) as a KeyObject. */
function publicKeyOf(raw: Buffer) {
  return createPublicKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: raw.subarray(1, 33).toString('base64url'),
      y: raw.subarray(33, 65).toString('base64url'),
    },
    format: 'jwk',
  });
}

export async function pushService() {
  const devices = new Map<string, Device>();
  const received: ReceivedPush[] = [];
  const problems: string[] = [];
  /** Devices whose push service says they are gone (410). */
  const gone = new Set<string>();
  let origin = '';

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void (async () => {
        const device = request.url?.split('/').at(-1) ?? '';
        const known = devices.get(device);
        if (!known || request.method !== 'POST') return 404;
        if (gone.has(device)) return 410;
        const header = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(request.headers.authorization ?? '');
        if (!header) throw new Error(`no VAPID header: ${request.headers.authorization}`);
        const { payload: claims } = await jwtVerify(header[1], publicKeyOf(Buffer.from(header[2], 'base64url')), {
          algorithms: ['ES256'],
          audience: origin,
        });
        if (request.headers['content-encoding'] !== 'aes128gcm') throw new Error('not aes128gcm');
        const plain = ece.decrypt(Buffer.concat(chunks), {
          version: 'aes128gcm',
          privateKey: known.ecdh,
          authSecret: known.auth.toString('base64url'),
        });
        received.push({
          device,
          headers: request.headers,
          payload: JSON.parse(plain.toString('utf8')),
          vapidKey: header[2],
          claims,
          status: 201,
        });
        return 201;
      })()
        .catch((error: unknown) => {
          problems.push(String(error));
          return 400;
        })
        .then((status) => {
          response.statusCode = status;
          response.end();
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;

  return {
    /** The `host:port` to list in `notify.push.allowEndpoints`. */
    hostPort: `127.0.0.1:${port}`,
    received,
    problems,
    gone,
    /** A new browser's subscription, keys made as a browser makes them (P-256 and a 16-byte auth secret). */
    subscribe(device: string) {
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      const auth = randomBytes(16);
      devices.set(device, { ecdh, auth });
      return {
        endpoint: `${origin}/push/${device}`,
        keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') },
      };
    },
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}
