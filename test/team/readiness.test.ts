import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InProcessAccountGate } from '../../src/api/gate/in-process-gate.js';
import { readinessProbe } from '../../src/team/health.js';

test('/readyz: not ready while the gate is off Redis or the upstream does not answer; probes are spaced on the clock', async () => {
  let now = 0;
  let upstreamUp = false;
  let probes = 0;
  const ready = readinessProbe({
    baseUrl: 'http://upstream.invalid',
    gate: new InProcessAccountGate(),
    redisConfigured: true,
    now: () => now,
    fetch: () => {
      probes += 1;
      return upstreamUp ? Promise.resolve(new Response('{}', { status: 401 })) : Promise.reject(new Error('ECONNREFUSED'));
    },
  });
  const first = await ready();
  assert.equal(first['upstream']?.ok, false, 'an upstream that does not answer is not ready');
  assert.equal(first['redis']?.ok, false, 'a gate on its in-process fallback means Redis is not reachable');
  upstreamUp = true;
  now += 1000;
  assert.equal((await ready())['upstream']?.ok, false, 'within the probe spacing the last answer stands');
  assert.equal(probes, 1);
  now += 5000;
  assert.equal((await ready())['upstream']?.ok, true, 'any HTTP answer below 500 (here 401: no key sent) proves it reachable');
  assert.equal(probes, 2);
});
