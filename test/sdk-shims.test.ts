/**
 * The JSON Schema validator that stands in for the SDK's Ajv in the bundle (src/sdk-shims.ts):
 * what it says about a form elicitation's answer, the one thing the SDK validates with it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DefaultJsonSchemaValidator } from '../src/sdk-shims.js';

const FORM = {
  type: 'object',
  properties: {
    ticker: { type: 'string', minLength: 1, maxLength: 5 },
    limit: { type: 'integer', minimum: 1, maximum: 500 },
    side: { type: 'string', enum: ['buy', 'sell'] },
    confirm: { type: 'boolean' },
  },
  required: ['ticker', 'confirm'],
} as const;

test('an answer that fits the requested form is valid and comes back as given', () => {
  const validate = new DefaultJsonSchemaValidator().getValidator<Record<string, unknown>>(FORM);
  const answer = { ticker: 'SPY', limit: 10, side: 'buy', confirm: true };
  const result = validate(answer);
  assert.equal(result.valid, true);
  assert.deepEqual(result.data, answer);
});

test('an answer outside the form is refused with a message naming the field', () => {
  const validate = new DefaultJsonSchemaValidator().getValidator(FORM);
  for (const [answer, field] of [
    [{ ticker: 'SPY', confirm: 'yes' }, 'confirm'],
    [{ ticker: 'SPY', confirm: true, limit: 0 }, 'limit'],
    [{ ticker: 'SPY', confirm: true, side: 'hold' }, 'side'],
    [{ confirm: true }, 'ticker'],
  ] as const) {
    const result = validate(answer);
    assert.equal(result.valid, false, JSON.stringify(answer));
    assert.match(result.errorMessage ?? '', new RegExp(field), JSON.stringify(answer));
  }
});
