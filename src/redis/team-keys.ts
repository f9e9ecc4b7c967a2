/**
 * Where a team's shared state lives in Redis. Limits belong to the account, so the gate's
 * keys are named by the account when the operator says which account a key belongs to
 * (MARKET_DATA_ACCOUNT_ID): every key of the account then waits in one gate. Answers
 * belong to the key (its scopes decide what it may read), so the cache and its shared
 * requests stay named by the key: nothing cached for one key is served to another.
 */
import { accountKeys, type AccountKeys } from './keys.js';

export function teamAccountKeys(apiKey: string, accountId: string | undefined): AccountKeys {
  const byKey = accountKeys(apiKey);
  if (!accountId) return byKey;
  // Hashed like a key: neither the account's name nor the key appears in Redis key names.
  const byAccount = accountKeys(`account-id:${accountId}`);
  return { ...byAccount, cache: byKey.cache, flight: byKey.flight, flightDone: byKey.flightDone };
}
