// Token hygiene (docs/service.md, "Token environments and expiry"): the build's aps-environment goes
// with every token, and a push-to-start token is reported again once a day so the service sees it in use.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { PUSH_TO_START_REPORT_INTERVAL_MS, createLivelineClient, memoryStorage, tokenEnvironment } from '../index.js';
import { bundle, fakeClock, signGrant, startService, token } from './service.js';

let service;
before(async () => { service = await startService(); });
after(async () => { await service.close(); });

let devices = 0;
function makeClient({ apsEnvironment, clock = fakeClock() } = {}) {
  const activityGrantProvider = async (installationID, activityID) => signGrant(service.tokenSecret, { deviceID: installationID, activityID });
  return createLivelineClient({ baseURL: service.url, appKey: service.appKey, deviceID: `env-phone-${++devices}`, storage: memoryStorage(),
    secureStorage: memoryStorage(), now: clock.now, sleep: clock.sleep, random: () => 0.5, activityGrantProvider, apsEnvironment });
}

test('apsEnvironment: the entitlement\'s values map to the service\'s names; anything else is refused at once', () => {
  assert.equal(tokenEnvironment('development'), 'sandbox');
  assert.equal(tokenEnvironment('sandbox'), 'sandbox');
  assert.equal(tokenEnvironment('production'), 'production');
  assert.equal(tokenEnvironment(undefined), null);
  assert.throws(() => tokenEnvironment('Production'), /apsEnvironment must be/);
  assert.throws(() => createLivelineClient({ baseURL: 'http://127.0.0.1:1', appKey: 'k', deviceID: 'd', secureStorage: memoryStorage(), apsEnvironment: 'staging' }), TypeError);
});

test('a production build\'s tokens are registered as production; the sandbox-only app shows the mismatch', async () => {
  const client = makeClient({ apsEnvironment: 'production' });
  await client.registerDevice({ bundleID: bundle, iosVersion: '18.2' });
  await client.setPushToStartToken('FlightAttributes', token());
  await client.setActivityToken('flight-env-1', token(), 'FlightAttributes');
  const report = await client.drain();
  assert.equal(report.dropped.length, 0, JSON.stringify(report.dropped));
  const id = await client.installationID();
  const device = await service.call('GET', `/v1/devices/${id}`);
  assert.equal(device.status, 200);
  const [start] = device.json.pushToStartTokens;
  assert.equal(start.environment, 'production');
  assert.equal(start.environmentReported, true);
  assert.equal(start.state, 'mismatch');
  assert.match(start.reason, /^token-environment-mismatch: /);
  const activity = await service.call('GET', '/v1/activities/flight-env-1');
  assert.equal(activity.json.tokens[0].environment, 'production');
});

test('without apsEnvironment the token takes the app\'s default environment', async () => {
  const client = makeClient();
  await client.registerDevice({ bundleID: bundle, iosVersion: '18.2' });
  await client.setPushToStartToken('FlightAttributes', token());
  await client.drain();
  const device = await service.call('GET', `/v1/devices/${await client.installationID()}`);
  const [start] = device.json.pushToStartTokens;
  assert.equal(start.environment, 'sandbox');
  assert.equal(start.environmentReported, false);
  assert.equal(start.state, 'active');
});

test('a push-to-start token the service holds is reported again after a day, not before', async () => {
  const clock = fakeClock();
  const client = makeClient({ apsEnvironment: 'sandbox', clock });
  const pts = token();
  await client.registerDevice({ bundleID: bundle, iosVersion: '18.2' });
  await client.setPushToStartToken('FlightAttributes', pts);
  await client.drain();
  const id = await client.installationID();
  const first = (await service.call('GET', `/v1/devices/${id}`)).json.pushToStartTokens[0].registeredAt;
  await client.setPushToStartToken('FlightAttributes', pts);
  assert.deepEqual(await client.pending(), [], 'reported again within the interval');
  clock.advance(PUSH_TO_START_REPORT_INTERVAL_MS);
  await client.setPushToStartToken('FlightAttributes', pts);
  assert.deepEqual((await client.pending()).map((o) => o.kind), ['pushToStart']);
  const report = await client.drain();
  assert.equal(report.sent.length, 1);
  const again = (await service.call('GET', `/v1/devices/${id}`)).json.pushToStartTokens[0].registeredAt;
  assert.ok(again > first, `the service saw it again: ${first} then ${again}`);
});
