/**
 * A real OpenID provider on loopback (the `oidc-provider` package, with its own login and consent pages),
 * and a small browser stand-in for the HTTP tests: a cookie jar per origin that follows redirects by hand.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type KoaContextWithOIDC } from 'oidc-provider';

export interface TestProvider {
  issuer: string;
  /** Registers Heed as the client, once its address is known (the callback is `<heedUrl>/auth/callback`). */
  register(heedUrl: string): void;
  close(): Promise<void>;
}

export interface Person {
  email?: string;
  emailVerified?: boolean;
  groups?: string[];
}

/**
 * Anyone may sign in with any password (the provider's development login page); `people` gives their
 * claims. `autoConsent` grants the scopes without the consent page (the HTTP tests); the browser test
 * goes through it.
 */
export async function startProvider(
  options: { people?: Record<string, Person>; autoConsent?: boolean; clientSecret?: string } = {},
): Promise<TestProvider> {
  let handle: ((request: IncomingMessage, response: ServerResponse) => void) | undefined;
  const server: Server = createServer((request, response) => {
    if (handle) handle(request, response);
    else response.writeHead(503).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const people = options.people ?? {};
  return {
    issuer,
    register(heedUrl) {
      const provider = new Provider(issuer, {
        clients: [
          {
            client_id: 'heed',
            client_secret: options.clientSecret ?? 'heed-test-secret',
            redirect_uris: [`${heedUrl}/auth/callback`],
            post_logout_redirect_uris: [`${heedUrl}/`],
            grant_types: ['authorization_code'],
            response_types: ['code'],
          },
        ],
        claims: {
          openid: ['sub'],
          email: ['email', 'email_verified'],
          profile: ['name', 'groups'],
        },
        cookies: { keys: ['heed-test-cookie-key'] },
        features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
        async findAccount(_context, sub) {
          const person = people[sub] ?? {};
          return {
            accountId: sub,
            claims: async () => ({
              sub,
              name: sub,
              email: person.email ?? `${sub}@example.com`,
              email_verified: person.emailVerified ?? true,
              groups: person.groups ?? [],
            }),
          };
        },
        ...(options.autoConsent
          ? {
              async loadExistingGrant(context: KoaContextWithOIDC) {
                const grant = new context.oidc.provider.Grant({
                  clientId: context.oidc.client!.clientId,
                  accountId: context.oidc.session!.accountId!,
                });
                grant.addOIDCScope('openid email profile');
                await grant.save();
                return grant;
              },
            }
          : {}),
      });
      handle = provider.callback();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Cookies by origin, as a browser keeps them (enough for these tests: no paths, no expiry). */
export class Browser {
  private readonly jars = new Map<string, Map<string, string>>();

  cookie(origin: string, name: string): string | undefined {
    return this.jars.get(origin)?.get(name);
  }

  setCookie(origin: string, name: string, value: string): void {
    const jar = this.jars.get(origin) ?? new Map<string, string>();
    jar.set(name, value);
    this.jars.set(origin, jar);
  }

  /** One request, with this origin's cookies; the response's cookies are kept. No redirect is followed. */
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const origin = new URL(url).origin;
    const jar = this.jars.get(origin) ?? new Map<string, string>();
    this.jars.set(origin, jar);
    const headers = new Headers(init.headers);
    if (jar.size > 0) headers.set('cookie', [...jar].map(([name, value]) => `${name}=${value}`).join('; '));
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      const gone = value === '' || attributes.some((attribute) => /max-age=0\b/i.test(attribute.trim()));
      if (gone) jar.delete(name);
      else jar.set(name, value);
    }
    return response;
  }

  /** Follows redirects from `url` until a page that is not one, or until `stop` says so of a URL. */
  async follow(
    url: string,
    stop: (url: string) => boolean = () => false,
  ): Promise<{ url: string; response: Response }> {
    let current = url;
    for (let hop = 0; hop < 20; hop++) {
      if (stop(current)) return { url: current, response: new Response(null, { status: 204 }) };
      const response = await this.fetch(current);
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || !location) return { url: current, response };
      await response.body?.cancel();
      current = new URL(location, current).href;
    }
    throw new Error(`Too many redirects from ${url}`);
  }

  /**
   * Signs `login` in at the provider, starting from Heed's `/auth/login` (with `returnTo`), filling the
   * provider's login page (and its consent page, when asked); answers Heed's callback response, unfollowed
   * (or stops before it, with its URL, when `stopAtCallback`).
   */
  async signIn(
    heedUrl: string,
    login: string,
    options: { returnTo?: string; stopAtCallback?: boolean } = {},
  ): Promise<{ url: string; response: Response }> {
    const start = `${heedUrl}/auth/login${options.returnTo !== undefined ? `?returnTo=${encodeURIComponent(options.returnTo)}` : ''}`;
    const isCallback = (url: string) => url.startsWith(`${heedUrl}/auth/callback`);
    let page = await this.follow(start, isCallback);
    for (let step = 0; step < 4 && !isCallback(page.url); step++) {
      const html = await page.response.text();
      const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
      const prompt = /name="prompt" value="([^"]+)"/.exec(html)?.[1];
      if (!action || !prompt) throw new Error(`No form on ${page.url}: ${html.slice(0, 300)}`);
      const body =
        prompt === 'login' ? new URLSearchParams({ prompt, login, password: 'any' }) : new URLSearchParams({ prompt });
      const posted = await this.fetch(new URL(action.replace(/&amp;/g, '&'), page.url).href, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      await posted.body?.cancel();
      page = await this.follow(new URL(posted.headers.get('location')!, page.url).href, isCallback);
    }
    if (options.stopAtCallback) return page;
    return { url: page.url, response: await this.fetch(page.url) };
  }
}
