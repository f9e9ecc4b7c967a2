/**
 * Accounts and keys of the simulated service. Limits and quota belong to the account,
 * scopes to the key, as in the spec's Authentication section.
 */
import { DATASETS, scopeOf, type DatasetDefinition } from '../catalog/index.js';

export interface SimAccount {
  readonly id: string;
  readonly userId: string;
  subscription: 'active' | 'lapsed';
}

export interface SimKey {
  readonly key: string;
  readonly accountId: string;
  readonly scopes: readonly string[];
  revoked: boolean;
}

export const MAX_ACTIVE_KEYS = 5;
export const ADMIN_USER_ID = 'user_admin';

/** Every scope the datasets need: what a standard key holds. */
export function standardScopes(datasets: readonly DatasetDefinition[] = DATASETS): string[] {
  return [...new Set(datasets.map(scopeOf))];
}

/** The built-in keys documented in the README. */
export function builtInBook(datasets: readonly DatasetDefinition[]): { accounts: SimAccount[]; keys: SimKey[] } {
  const all = standardScopes(datasets);
  return {
    accounts: [
      { id: 'acct_live', userId: 'user_live', subscription: 'active' },
      { id: 'acct_admin', userId: ADMIN_USER_ID, subscription: 'active' },
      { id: 'acct_lapsed', userId: 'user_lapsed', subscription: 'lapsed' },
    ],
    keys: [
      { key: 'sim-live-key', accountId: 'acct_live', scopes: all, revoked: false },
      { key: 'sim-narrow-key', accountId: 'acct_live', scopes: ['read:market', 'read:stocks', 'read:macro'], revoked: false },
      { key: 'sim-revoked-key', accountId: 'acct_live', scopes: all, revoked: true },
      { key: 'sim-admin-key', accountId: 'acct_admin', scopes: all, revoked: false },
      { key: 'sim-lapsed-key', accountId: 'acct_lapsed', scopes: all, revoked: false },
    ],
  };
}

export class KeyLimitReachedError extends Error {
  readonly code = 'KEY_LIMIT_REACHED';
  readonly status = 409;
  constructor(accountId: string) {
    super(`Account ${accountId} already holds ${MAX_ACTIVE_KEYS} active keys.`);
  }
}

export class AccountBook {
  private readonly accounts = new Map<string, SimAccount>();
  private readonly keys = new Map<string, SimKey>();
  private serial = 0;

  constructor(initial: { accounts: SimAccount[]; keys: SimKey[] }) {
    for (const account of initial.accounts) this.accounts.set(account.id, { ...account });
    for (const key of initial.keys) this.keys.set(key.key, { ...key });
  }

  key(value: string): SimKey | undefined {
    return this.keys.get(value);
  }

  account(id: string): SimAccount | undefined {
    return this.accounts.get(id);
  }

  addAccount(account: SimAccount): void {
    this.accounts.set(account.id, { ...account });
  }

  /** Creates a key; a sixth active key is refused with KEY_LIMIT_REACHED (409). */
  createKey(accountId: string, scopes: readonly string[] = standardScopes(), value?: string): string {
    if (!this.accounts.has(accountId)) throw new Error(`Unknown account ${accountId}`);
    const active = [...this.keys.values()].filter((k) => k.accountId === accountId && !k.revoked).length;
    if (active >= MAX_ACTIVE_KEYS) throw new KeyLimitReachedError(accountId);
    this.serial += 1;
    const key = value ?? `sim-key-${accountId}-${this.serial}`;
    this.keys.set(key, { key, accountId, scopes: [...scopes], revoked: false });
    return key;
  }

  revokeKey(value: string): void {
    const key = this.keys.get(value);
    if (key) key.revoked = true;
  }

  setSubscription(accountId: string, subscription: SimAccount['subscription']): void {
    const account = this.accounts.get(accountId);
    if (!account) throw new Error(`Unknown account ${accountId}`);
    account.subscription = subscription;
  }
}
