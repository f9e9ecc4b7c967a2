/**
 * The row field names this client's answers have shown, by a key of the MCP side's
 * (dataset and format: src/mcp/arguments/fields.ts). Kept by the client, one account's view,
 * and apart from the cache so that they hold with the cache off.
 */
export class FieldsSeen {
  private readonly byKey = new Map<string, Set<string>>();

  add(key: string, names: readonly string[]): void {
    if (names.length === 0) return;
    const known = this.byKey.get(key) ?? new Set<string>();
    for (const name of names) known.add(name);
    this.byKey.set(key, known);
  }

  get(key: string): ReadonlySet<string> | undefined {
    return this.byKey.get(key);
  }
}
