/** An error body that is not the spec's envelope, but JSON: the API's answer, its words kept, its status's step as the hint. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { errorFromResponse } from '../../src/api/errors.js';
import { codeForStatus } from '../../src/catalog/index.js';
import { redactEverywhere } from '../../src/secrets.js';

const KEY = 'sk_live_error_body_0123456789';
redactEverywhere(KEY);

/** The common error forms of public APIs, each carrying `said`. */
const FORMS: Record<string, (said: string) => unknown> = {
  github: (said) => ({
    message: said,
    errors: [{ resource: 'Search', field: 'per_page', code: 'invalid' }],
    documentation_url: 'https://docs/x',
  }),
  fastapiList: (said) => ({ detail: [{ loc: ['query', 'size'], msg: said, type: 'less_than_equal' }] }),
  fastapiText: (said) => ({ detail: said }),
  problem: (said) => ({ type: 'about:blank', title: 'Bad Request', status: 400, detail: said }),
  errorText: (said) => ({ error: said }),
  errorObject: (said) => ({ error: { message: said } }),
  jsonApi: (said) => ({ errors: [{ status: '422', title: said, source: { parameter: 'page[size]' } }] }),
};

const word = fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{2,11}$/);
const words = fc.array(word, { minLength: 1, maxLength: 8 }).map((w) => w.join(' '));

test('a JSON error body in any common form: the message is what the API said, never "something in front of the API"', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...Object.keys(FORMS)),
      fc.constantFrom(400, 401, 403, 404, 409, 422, 429, 500, 502, 503, 504),
      words,
      fc.boolean(),
      (form, status, said, echoKey) => {
        const text = echoKey ? `${said} ${KEY}` : said;
        const error = errorFromResponse(status, FORMS[form]?.(text), undefined, undefined);
        assert.equal(error.code, codeForStatus(status), 'the code by status, through the table');
        assert.ok(error.message.includes(said), `${form} ${status}: ${error.message}`);
        assert.doesNotMatch(`${error.message} ${error.hint ?? ''}`, /in front of the API|MARKET_DATA_BASE_URL/);
        assert.ok(!JSON.stringify(error.toJSON()).includes(KEY), 'the key never echoed');
        if (status === 400 || status === 422)
          assert.ok(error.hint?.startsWith('Fix the arguments: ') && error.hint.includes(said), error.hint);
      },
    ),
  );
});

test('a body that is not JSON (a proxy page, nothing at all) is still named as something in front of the API', () => {
  for (const status of [400, 422, 502, 503, 504]) {
    const error = errorFromResponse(status, undefined, undefined, undefined);
    assert.match(`${error.message} ${error.hint ?? ''}`, /in front of the API/, String(status));
  }
  const capped = errorFromResponse(422, { detail: 'x'.repeat(5000) }, undefined, undefined);
  assert.ok(capped.message.length < 600, 'what the API said is capped');
});
