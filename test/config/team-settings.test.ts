/** The team concern (config/team.ts): a member's daily budget and the key map; anything wrong stops the start, said. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keyMapPlace, teamSettings } from '../../src/config/team.js';

const problems = (env: Record<string, string>): string[] => teamSettings(env).problems.map((p) => p.message);

test('good and missing values are used silently', () => {
  assert.deepEqual(teamSettings({}), { settings: { dailyUnits: undefined, keyMap: undefined }, problems: [] });
  const section = teamSettings({
    MARKET_DATA_USER_DAILY_UNITS: '500',
    MARKET_DATA_KEY_MAP_FILE: ' /srv/keys.sealed ',
    MARKET_DATA_KEY_MAP_SECRET: 's3cret',
    MARKET_DATA_KEY_MAP_UNMAPPED: 'team',
  });
  assert.deepEqual(section, {
    settings: { dailyUnits: 500, keyMap: { file: '/srv/keys.sealed', secret: 's3cret', unmapped: 'team' } },
    problems: [],
  });
  assert.equal(teamSettings({ MARKET_DATA_KEY_MAP_FILE: 'k', MARKET_DATA_KEY_MAP_SECRET: 's' }).settings.keyMap?.unmapped, 'refuse');
});

test('a daily budget that is not a whole number of units, 1 or more, says what was given', () => {
  assert.deepEqual(problems({ MARKET_DATA_USER_DAILY_UNITS: 'lots' }), [
    'MARKET_DATA_USER_DAILY_UNITS=lots is not a whole number of units',
  ]);
  assert.deepEqual(problems({ MARKET_DATA_USER_DAILY_UNITS: '2.5' }), ['MARKET_DATA_USER_DAILY_UNITS=2.5 is not a whole number of units']);
  assert.deepEqual(problems({ MARKET_DATA_USER_DAILY_UNITS: '0' }), ['MARKET_DATA_USER_DAILY_UNITS=0 is less than 1 unit']);
  assert.deepEqual(problems({ MARKET_DATA_USER_DAILY_UNITS: '-3' }), ['MARKET_DATA_USER_DAILY_UNITS=-3 is less than 1 unit']);
});

test('a half-configured key map names what is missing, and never shows the secret', () => {
  assert.deepEqual(problems({ MARKET_DATA_KEY_MAP_SECRET: 'hunter2-secret' }), [
    'MARKET_DATA_KEY_MAP_FILE is required with MARKET_DATA_KEY_MAP_SECRET or MARKET_DATA_KEY_MAP_UNMAPPED.',
  ]);
  assert.deepEqual(problems({ MARKET_DATA_KEY_MAP_FILE: '/srv/keys.sealed' }), [
    'MARKET_DATA_KEY_MAP_SECRET is required to open MARKET_DATA_KEY_MAP_FILE.',
  ]);
  const wrong = teamSettings({
    MARKET_DATA_KEY_MAP_FILE: 'k',
    MARKET_DATA_KEY_MAP_SECRET: 'hunter2-secret',
    MARKET_DATA_KEY_MAP_UNMAPPED: 'allow',
  });
  assert.deepEqual(
    wrong.problems.map((p) => p.message),
    ['MARKET_DATA_KEY_MAP_UNMAPPED=allow is neither refuse nor team (what a subject the key map does not name gets)'],
  );
  assert.doesNotMatch(JSON.stringify(wrong.problems), /hunter2/);
});

test('the keys command finds the map by the same two variables', () => {
  assert.deepEqual(keyMapPlace({ MARKET_DATA_KEY_MAP_FILE: ' /srv/k ', MARKET_DATA_KEY_MAP_SECRET: 's' }), { file: '/srv/k', secret: 's' });
  assert.deepEqual(keyMapPlace({}), { file: undefined, secret: undefined });
});
