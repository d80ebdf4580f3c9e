// Voltra's activity name and the phone's own ActivityKit activity id, against a real `liveline
// serve` and a simulated iPhone: a start whose Voltra name differs from the logical id, the token
// event as Voltra emits it (name, and the phone's id as `source`), a tap reported under the phone's
// id before its token was uploaded: kept, not dropped, and delivered under the logical id.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createLivelineClient, memoryStorage, UNRESOLVED_ACTIVITY_RETRY_MS, wireVoltra } from '../index.js';
import { fakeClock } from './service.js';
import { run, startWorld } from './liveline-world.js';

let world;
before(async () => { world = await startWorld(['VoltraAttributes']); });
after(async () => { await world?.close(); });

async function render(layout) { return (await run(['ui', 'encode', '-'], JSON.stringify(layout))).trim(); }

async function voltraPhone(clock) {
  const client = createLivelineClient({ baseURL: world.url, appKey: world.appKey, deviceID: `voltra-${randomUUID().slice(0, 8)}`,
    storage: memoryStorage(), secureStorage: memoryStorage(), now: clock.now, sleep: clock.sleep });
  await client.registerDevice({ bundleID: 'com.example.flights', iosVersion: '18.2' });
  await client.drain();
  const listeners = new Map();
  wireVoltra((event, callback) => { listeners.set(event, callback); return { remove: () => listeners.delete(event) }; }, client, { drain: false });
  const emit = (event, payload) => listeners.get(event)({ type: event, ...payload });
  return { client, emit, installationID: await client.installationID() };
}

test("a start named otherwise, a tap under the phone's activity id before its token: delivered under the logical id", async () => {
  const clock = fakeClock();
  const { client, emit, installationID } = await voltraPhone(clock);
  const devices = (await world.phone('GET', '/simulator/v1/devices')).json;
  await emit('activityPushToStartTokenReceived', { pushToStartToken: devices.find((d) => d.id === 'phone').apps[0].pushToStartTokens.VoltraAttributes });
  await client.drain();

  const hello = await render({ lockScreen: { type: 'Text', children: 'Hello' } });
  const started = await world.service('POST', '/v1/activities/ride-7/start', {
    attributesType: 'VoltraAttributes', attributes: { name: 'match-123', deepLinkUrl: 'app://ride/7' },
    contentState: { uiJsonData: hello }, alert: { title: 'Driver arrived', body: 'Ready for pickup' }, audience: { deviceIDs: [installationID] },
  });
  assert.equal(started.status, 202, JSON.stringify(started.json));
  assert.equal((await world.service('GET', '/v1/activities/ride-7?wait=20')).json.deliveries[0].state, 'sent');
  const activity = (await world.phone('GET', '/simulator/v1/activities')).json.find((a) => a.attributes.name === 'match-123');
  assert.ok(activity, 'the phone started the activity, named as Voltra names it');

  // The tap comes first, under the phone's activity id, which the service cannot resolve yet.
  await emit('interaction', { source: activity.id, identifier: 'tip', payload: '', timestamp: 1764145760.5 });
  const early = await client.drain({ withinMs: 5000 });
  assert.deepEqual(early.dropped, [], 'a 404 for an id that may resolve later is kept');
  assert.equal(early.remaining, 1, JSON.stringify(early));

  // activityTokenReceived as Voltra emits it: the name, and the phone's id as the source.
  await emit('activityTokenReceived', { source: activity.id, activityName: 'match-123', pushToken: activity.pushToken, timestamp: 1764145761, type: 'update' });
  const later = await client.drain({ withinMs: 120_000 });
  assert.deepEqual(later.dropped, [], JSON.stringify(later));
  assert.equal(later.remaining, 0, JSON.stringify(later));
  const status = (await world.service('GET', '/v1/activities/ride-7')).json;
  assert.deepEqual(status.tokens.map((t) => t.deviceID), [installationID], 'the token is the logical activity\'s');
  const interactions = (await world.service('GET', '/v1/activities/ride-7/interactions')).json.interactions;
  assert.deepEqual(interactions.map((i) => [i.action, i.activityID]), [['tip', 'ride-7']]);

  // An update by the logical id reaches the phone.
  const arrived = await render({ lockScreen: { type: 'Text', children: 'Driver arrived' } });
  assert.equal((await world.service('POST', '/v1/activities/ride-7/update', { contentState: { uiJsonData: arrived } })).status, 202);
  assert.equal((await world.service('GET', '/v1/activities/ride-7?wait=20')).json.deliveries[0].state, 'sent');
  assert.equal((await world.activity(activity.id)).contentState.uiJsonData, arrived);

  // Another installation reporting that phone's activity id with its own activity's token: the
  // service refuses the alias (409 alias-taken) and the client sends the token without it, not lost.
  const other = await voltraPhone(fakeClock());
  const own = `${other.installationID}:own`;
  await other.client.setActivityToken(own, 'ab'.repeat(32), 'VoltraAttributes', { deviceActivityID: activity.id });
  const report = await other.client.drain({ withinMs: 5000 });
  assert.deepEqual([report.dropped, report.remaining], [[], 0], JSON.stringify(report));
  assert.equal((await world.service('GET', `/v1/activities/${encodeURIComponent(own)}`)).json.tokens.length, 1);
  await other.emit('interaction', { source: activity.id, identifier: 'steal', payload: '', timestamp: 1764145790 });
  await other.client.drain({ withinMs: 5000 });
  const still = (await world.service('GET', '/v1/activities/ride-7/interactions')).json.interactions;
  assert.deepEqual(still.map((i) => i.action), ['tip'], 'the other installation\'s tap never reaches ride-7');
});

test('a tap for an id that never resolves is retried for the window, then dropped', async () => {
  const clock = fakeClock();
  const { client, emit } = await voltraPhone(clock);
  await emit('interaction', { source: randomUUID().toUpperCase(), identifier: 'tip', payload: '', timestamp: 1764145800 });
  const first = await client.drain({ withinMs: 1000 });
  assert.deepEqual([first.dropped.length, first.remaining], [0, 1]);
  clock.advance(UNRESOLVED_ACTIVITY_RETRY_MS);
  const last = await client.drain({ withinMs: 600_000 });
  assert.equal(last.dropped.length, 1, JSON.stringify(last));
  assert.match(last.dropped[0], /404 not-found/);
  assert.equal(last.remaining, 0);
});
