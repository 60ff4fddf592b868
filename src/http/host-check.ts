import { isIP } from 'node:net';
import type { Context } from 'hono';
import type { AllowedHosts } from '../config.js';
import { HeedError } from '../errors.js';
import { clip } from '../kinds/clip.js';
import type { AppEnv } from './route.js';

/** True for an address a server can listen on that only this machine reaches. */
export function isLoopbackAddress(address: string): boolean {
  const host = address.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return host === 'localhost' || host === '::1' || isLoopbackIPv4(host) || /^::ffff:127\./.test(host);
}

function isLoopbackIPv4(host: string): boolean {
  return isIP(host) === 4 && host.startsWith('127.');
}

/** The name of a `Host` header without its port, lower case, without a trailing dot; IPv6 keeps its brackets. */
export function hostName(header: string): string {
  const host = header.trim().toLowerCase();
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d*$/, '');
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

function isLoopbackName(name: string): boolean {
  return name === 'localhost' || name.endsWith('.localhost') || isLoopbackIPv4(name) || name === '[::1]';
}

function isAddress(name: string): boolean {
  return isIP(name.replace(/^\[(.*)\]$/, '$1')) !== 0;
}

/**
 * Throws `host_not_allowed` for a request whose `Host` is not one this server answers to, so a page on
 * another site that rebinds its DNS name to this machine cannot talk to it (DNS rebinding). The check
 * runs when the server listens on a loopback address, or when `allowedHosts` lists names; loopback names
 * always pass, and so do IP addresses when the server listens beyond loopback (a page cannot rebind an
 * address). `true` turns the check off. Undefined when there is nothing to check.
 */
export function hostCheck(options: {
  allowedHosts?: AllowedHosts;
  listenAddress?: string;
}): ((c: Context<AppEnv>) => void) | undefined {
  const { allowedHosts, listenAddress } = options;
  if (allowedHosts === true) return undefined;
  const loopback = listenAddress !== undefined && isLoopbackAddress(listenAddress);
  if (!loopback && allowedHosts === undefined) return undefined;
  const exact = new Set<string>();
  const suffixes: string[] = [];
  for (const entry of allowedHosts ?? []) {
    const name = entry.trim().toLowerCase().replace(/\.$/, '');
    if (name.startsWith('.')) suffixes.push(name);
    else exact.add(name);
  }
  const allowed = (name: string) =>
    isLoopbackName(name) ||
    exact.has(name) ||
    suffixes.some((suffix) => name === suffix.slice(1) || name.endsWith(suffix)) ||
    (!loopback && isAddress(name));
  return (c) => {
    // A channel's endpoint is called by the workspace's servers, under whatever public name (a tunnel's,
    // say) points here, and each request is signed with a secret a rebinding page cannot have.
    if (c.req.path.startsWith('/api/channels/')) return;
    const header = c.req.header('host') ?? new URL(c.req.url).host;
    const name = hostName(header);
    if (!allowed(name)) {
      const shown = clip(name, 100);
      throw new HeedError(
        'host_not_allowed',
        `This server does not answer to the host "${shown}"; if that name is yours, add it to allowedHosts in the config.`,
        {
          details: { host: shown },
        },
      );
    }
  };
}
