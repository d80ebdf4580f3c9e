import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { backoffDelay, createLivelineClient, memoryStorage, UNRESOLVED_ACTIVITY_RETRY_MS, wirePushTokenUpdates, wireVoltra } from '../index.js';
import { bundle, fakeClock, prefix, signGrant, startService, token } from './service.js';

let service;
before(async () => { service = await startService(); });
after(async () => { await service.close(); });

let devices = 0;
function makeClient({ storage = memoryStorage(), deviceID = `phone-${++devices}`, clock = fakeClock(), log } = {}) {
  // The app's backend grants the activities the app starts itself (signed with the app's token secret).
  const activityGrantProvider = async (installationID, activityID) => signGrant(service.tokenSecret, { deviceID: installationID, activityID });
  return createLivelineClient({ baseURL: service.url, appKey: service.appKey, deviceID, storage, now: clock.now, sleep: clock.sleep, random: () => 0.5, log, activityGrantProvider });
}

test('backoff doubles up to the maximum, the upper half random', () => {
  assert.equal(backoffDelay(1, 0), 500);
  assert.equal(backoffDelay(3, 0), 2000);
  assert.equal(backoffDelay(30, 0.5), 225000);
});

test('the device goes first; a rotation before the upload sends only the newest token', async () => {
  const client = makeClient();
  const first = token(), second = token();
  await client.setActivityToken('flight-a', first, 'FlightAttributes');
  await client.registerDevice({ bundleID: bundle, iosVersion: '18.2' });
  await client.setActivityToken('flight-a', second, 'FlightAttributes');
  const report = await client.drain();
  assert.deepEqual(report.sent, [`device ${client.deviceID}`, `token of ${client.deviceID} for flight-a (${prefix(second)})`]);
  assert.equal((await service.tokens('flight-a'))[await client.installationID()], prefix(second));
  // Re-delivered: not sent again.
  await client.setActivityToken('flight-a', second, 'FlightAttributes');
  assert.deepEqual(await client.pending(), []);
});

test('an empty push-to-start token is never registered', async () => {
  const client = makeClient();
  await client.registerDevice({ bundleID: bundle, iosVersion: '18.2' });
  await client.setPushToStartToken('FlightAttributes', '');
  await client.setPushToStartToken('FlightAttributes', undefined);
  assert.deepEqual((await client.pending()).map((o) => o.kind), ['device']);
});

test('the service down then up: nothing is lost, and the relaunched app resumes the queue', async () => {
  const storage = memoryStorage();
  const clock = fakeClock();
  const lines = [];
  const client = makeClient({ storage, clock, log: (l) => lines.push(l) });
  await client.registerDevice({ bundleID: bundle, iosVersion: '18.2' });
  await client.setActivityToken('flight-b', token());
  await client.drain();
  await service.stop();
  const newest = token();
  await client.setActivityToken('flight-b', newest);
  await client.postInteraction({ activityID: 'flight-b', action: 'check-in', idempotencyKey: 'tap-1' });
  const down = await client.drain({ withinMs: 30000 });
  assert.deepEqual(down.sent, []);
  assert.deepEqual(down.dropped, []);
  assert.equal(down.remaining, 2);
  assert.ok(lines.every((l) => !l.includes(newest) && !l.includes(service.appKey)));
  await service.restart();
  // Killed meanwhile: a new client on the same storage (the app relaunched) finishes the work.
  const relaunched = createLivelineClient({ baseURL: service.url, appKey: service.appKey, deviceID: client.deviceID, storage, now: clock.now, sleep: clock.sleep });
  const up = await relaunched.drain({ withinMs: 300000 });
  assert.equal(up.remaining, 0);
  assert.equal((await service.tokens('flight-b'))[await client.installationID()], prefix(newest));
  const taps = await service.call('GET', '/v1/activities/flight-b/interactions');
  assert.deepEqual(taps.json.interactions.map((i) => i.idempotencyKey), ['tap-1']);
});

test('taps are never coalesced and never delivered twice', async () => {
  const client = makeClient();
  await client.registerDevice({ bundleID: bundle, iosVersion: '18.2' });
  await client.setActivityToken('flight-c', token());
  await client.postInteraction({ activityID: 'flight-c', action: 'check-in', idempotencyKey: 'c-1' });
  await client.postInteraction({ activityID: 'flight-c', action: 'check-in', idempotencyKey: 'c-1' });
  await client.postInteraction({ activityID: 'flight-c', action: 'check-in', idempotencyKey: 'c-2' });
  assert.equal((await client.drain()).sent.length, 4);
  await client.postInteraction({ activityID: 'flight-c', action: 'check-in', idempotencyKey: 'c-1' });
  assert.deepEqual(await client.pending(), []);
  const taps = await service.call('GET', '/v1/activities/flight-c/interactions');
  assert.deepEqual(taps.json.interactions.map((i) => i.idempotencyKey).sort(), ['c-1', 'c-2']);
});

test('reconcile at launch deletes the tokens of activities no longer running', async () => {
  const client = makeClient();
  await client.registerDevice({ bundleID: bundle, iosVersion: '18.2' });
  await client.setActivityToken('flight-d', token());
  await client.setActivityToken('flight-e', token());
  await client.drain();
  await client.reconcile(['flight-e']);
  await client.drain();
  assert.equal((await service.tokens('flight-d'))[await client.installationID()], undefined);
  assert.ok((await service.tokens('flight-e'))[await client.installationID()]);
});

test("Voltra's events: push-to-start, update tokens, the end, and a replayed tap", async () => {
  const listeners = new Map();
  const addVoltraListener = (event, callback) => { listeners.set(event, callback); return { remove: () => listeners.delete(event) }; };
  const emit = (event, payload) => listeners.get(event)({ type: event, ...payload });
  const client = makeClient();
  await client.registerDevice({ bundleID: bundle, iosVersion: '18.2' });
  const unwire = wireVoltra(addVoltraListener, client, { drain: false, activityIDFor: (name) => `voltra-${name}` });
  const pts = token(), update = token();
  await emit('activityPushToStartTokenReceived', { pushToStartToken: pts });
  await emit('activityTokenReceived', { activityName: 'order-1', pushToken: update, timestamp: 1 });
  const tap = { source: 'order-1', identifier: 'cancel', payload: '', timestamp: 12.5 };
  await emit('interaction', tap);
  assert.equal((await client.drain()).sent.length, 4);
  assert.equal((await service.tokens('voltra-order-1'))[await client.installationID()], prefix(update));
  await emit('interaction', tap); // replayed from Voltra's App Group queue
  await emit('stateChange', { activityName: 'order-1', activityState: 'dismissed', timestamp: 2 });
  const report = await client.drain();
  assert.deepEqual(report.sent, [`deletion of ${client.deviceID}'s token for voltra-order-1`]);
  assert.equal((await service.tokens('voltra-order-1'))[await client.installationID()], undefined);
  unwire();
  assert.equal(listeners.size, 0);
});

test("the flight-tracker guide's onPushTokenUpdate goes to the same API", async () => {
  let callback;
  const onPushTokenUpdate = (cb) => { callback = cb; return 'subscription'; };
  const client = makeClient();
  await client.registerDevice({ bundleID: bundle, iosVersion: '18.2' });
  assert.equal(wirePushTokenUpdates(onPushTokenUpdate, client, { drain: false, attributesType: 'FlightAttributes' }), 'subscription');
  const t = token();
  await callback({ activityId: 'flight-f', pushToken: t });
  await client.drain();
  assert.equal((await service.tokens('flight-f'))[await client.installationID()], prefix(t));
});

test('the installation: made once with the app key, its secret in secureStorage, the user bound by the backend\'s token', async () => {
  const secureStorage = memoryStorage(), storage = memoryStorage();
  const clock = fakeClock();
  const userTokenProvider = async (installationID, userID) => signGrant(service.tokenSecret, { sub: userID, deviceID: installationID });
  const client = createLivelineClient({ baseURL: service.url, appKey: service.appKey, deviceID: 'rn-user-phone', storage, secureStorage,
    now: clock.now, sleep: clock.sleep, random: () => 0.5, userTokenProvider });
  await client.registerDevice({ bundleID: bundle, iosVersion: '18.2', userID: 'ana' });
  await client.setPushToStartToken('FlightAttributes', token());
  const report = await client.drain();
  assert.equal(report.sent.length, 2, JSON.stringify(report));
  const id = await client.installationID();
  assert.match(id, /^inst_[0-9a-f]{24}$/);
  const stored = JSON.parse(await secureStorage.getItem('liveline.installation.v1'));
  assert.equal(stored.installationID, id);
  assert.match(stored.secret, /^ll_inst_[0-9a-f]{40}$/);
  assert.equal(await storage.getItem('liveline.installation.v1'), null);
  const device = await service.call('GET', `/v1/devices/${id}`);
  assert.equal(device.json.userID, 'ana');
  assert.equal(device.json.userVerified, true);
  // The app key alone cannot write the device; the credential cannot touch another id.
  assert.equal((await service.call('PUT', `/v1/devices/${id}`, { bundleID: bundle, iosVersion: '16.0' }, service.appKey)).status, 403);
  assert.equal((await service.call('DELETE', '/v1/devices/inst_000000000000000000000000', undefined, stored.secret)).status, 404);
});

test('a content state the app failed to decode is reported for its activity and becomes the reason in the service\'s status; another installation cannot report on it', async () => {
  const client = makeClient();
  await client.registerDevice({ bundleID: bundle, iosVersion: '18.2' });
  await client.setActivityToken('flight-dec', token(), 'FlightAttributes');
  await client.postDecodeFailure('flight-dec', 'dataCorrupted(status): Cannot initialize FlightStatus from invalid String value landed');
  const report = await client.drain();
  assert.ok(report.sent.includes(`decode failure of ${client.deviceID} for flight-dec`), JSON.stringify(report));
  const installation = await client.installationID();
  const status = (await service.call('GET', '/v1/activities/flight-dec')).json.devices.find((d) => d.deviceID === installation);
  assert.equal(status.reason.code, 'decode-failed', JSON.stringify(status));
  assert.match(status.reason.message, /invalid String value landed/);

  // Another installation: 404, kept while the id might still resolve (UNRESOLVED_ACTIVITY_RETRY_MS), then dropped.
  const strangerClock = fakeClock();
  const stranger = makeClient({ clock: strangerClock });
  await stranger.registerDevice({ bundleID: bundle, iosVersion: '18.2' });
  await stranger.postDecodeFailure('flight-dec', 'keyNotFound(gate)');
  const refused = await stranger.drain();
  assert.equal(refused.sent.filter((s) => s.startsWith('decode failure')).length, 0);
  assert.deepEqual([refused.dropped.length, refused.remaining], [0, 1], JSON.stringify(refused));
  strangerClock.advance(UNRESOLVED_ACTIVITY_RETRY_MS);
  const dropped = await stranger.drain({ withinMs: 600_000 });
  assert.equal(dropped.sent.filter((s) => s.startsWith('decode failure')).length, 0);
  assert.equal(dropped.dropped.length, 1, JSON.stringify(dropped));
  await assert.rejects(client.postDecodeFailure('flight-dec', '  '), /decoder's message/);
});
