/**
 * A URL the server sends to or trusts (the API's base, the identity provider's issuer, its
 * keys, this server's public address): https everywhere, plain http only on a loopback host
 * (tests, a local simulator or identity provider), and never with credentials or a fragment.
 * One rule for every such variable, each adding what its own use refuses besides.
 */
import * as z from 'zod';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

interface SecureUrlRules {
  /** Said after "is not a URL" (`; use e.g. https://api.example.com`). */
  example?: string;
  /** A query is refused too, with this reason (the API's base: the key has its own variable). */
  noQuery?: string;
}

/** A zod schema of a string that must be such a URL; it gives the URL parsed. */
export function secureUrl(rules: SecureUrlRules = {}): z.ZodPipe<z.ZodString, z.ZodTransform<URL, string>> {
  return z.string().transform((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: `is not a URL${rules.example ? `; use e.g. ${rules.example}` : ''}` });
      return z.NEVER;
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
      ctx.addIssue({ code: 'custom', message: 'must use https: (plain http: only for loopback hosts such as 127.0.0.1)' });
      return z.NEVER;
    }
    if (url.username || url.password || url.hash || (rules.noQuery !== undefined && url.search)) {
      const parts = rules.noQuery !== undefined ? 'credentials, a query or a fragment' : 'credentials or a fragment';
      ctx.addIssue({ code: 'custom', message: `must not carry ${parts}${rules.noQuery ?? ''}` });
      return z.NEVER;
    }
    return url;
  });
}
