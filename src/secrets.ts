/**
 * The process's secrets: the configured API key, and anything else that must never leave
 * this process. Kept apart from sanitize.ts, which cleans text that came from outside,
 * because every way out uses it: the text cleaner (so an upstream that echoes the key shows
 * the agent `[redacted]`) and the log destination (log.ts). One set for the process: each
 * client registers its key when it is made (a team's key map makes one client per key).
 */

const secrets = new Set<string>();

/**
 * Every string sanitize.ts cleans and every log line from now on has `secret` replaced by `[redacted]`:
 * an upstream that echoes the key (in data, an error message, a hint) never shows it to
 * the agent. Short values are ignored (they would redact ordinary words).
 */
export function redactEverywhere(secret: string | undefined): void {
  if (secret === undefined || secret.length < 8) return;
  secrets.add(secret);
  // As it appears inside a JSON string (a log line), should it hold a quote or a backslash.
  secrets.add(JSON.stringify(secret).slice(1, -1));
}

export function redactSecrets(value: string): string {
  let clean = value;
  for (const secret of secrets) if (clean.includes(secret)) clean = clean.split(secret).join('[redacted]');
  return clean;
}
