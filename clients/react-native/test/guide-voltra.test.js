// Voltra's "Server-side updates" page (../shared/seeds/001_*.txt), moved to Liveline as
// docs/from-voltra.md says: Voltra's events as its page shows them (emulated here: the
// @use-voltra/ios-client listeners), wired by wireVoltra to this package's client; the page's
// payloads sent through `liveline serve` to a simulated iPhone running VoltraAttributes.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createLivelineClient, memoryStorage, wireVoltra } from '../index.js';
import { run, startWorld } from './liveline-world.js';

let world;
before(async () => { world = await startWorld(['VoltraAttributes']); });
after(async () => { await world?.close(); });

/** What renderLiveActivityToString returns for a layout: `liveline ui encode`. */
async function render(layout) { return (await run(['ui', 'encode', '-'], JSON.stringify(layout))).trim(); }

test("Voltra's events and the page's payloads: push-to-start, update token, update, a tap, the end", async () => {
  const deviceID = `voltra-install-${randomUUID().slice(0, 8)}`;
  const client = createLivelineClient({ baseURL: world.url, appKey: world.appKey, deviceID, storage: memoryStorage(), secureStorage: memoryStorage() });
  await client.registerDevice({ bundleID: 'com.example.flights', iosVersion: '18.2' });
  await client.drain();
  // The service's device id is the installation the client created with the app key.
  const installationID = await client.installationID();
  assert.match(installationID ?? '', /^inst_/, 'the client created its installation');
  const listeners = new Map();
  const addVoltraListener = (event, callback) => { listeners.set(event, callback); return { remove: () => listeners.delete(event) }; };
  const emit = (event, payload) => listeners.get(event)({ type: event, ...payload });
  wireVoltra(addVoltraListener, client, { drain: false });

  // The phone's push-to-start token, as activityPushToStartTokenReceived reports it.
  const devices = (await world.phone('GET', '/simulator/v1/devices')).json;
  const pushToStartToken = devices.find((d) => d.id === 'phone').apps[0].pushToStartTokens.VoltraAttributes;
  await emit('activityPushToStartTokenReceived', { pushToStartToken });
  await client.drain();

  // The page's start (iOS 17.2): attributes {name, deepLinkUrl}, alert; uiJsonData from the renderer.
  const hello = await render({ lockScreen: { type: 'VStack', children: { type: 'Text', children: 'Hello' } } });
  const start = (uiJsonData) => world.service('POST', '/v1/activities/some-name/start', {
    attributesType: 'VoltraAttributes', attributes: { name: 'some-name', deepLinkUrl: 'app://some-deep-link-url' },
    contentState: { uiJsonData }, alert: { title: 'Driver arrived', body: 'Ready for pickup' }, audience: { deviceIDs: [installationID] },
    channel: 'none', // the update-token path the page describes (an iOS 18 phone would otherwise follow a channel of the activity's own)
  });
  // The page's literal example carries uiJsonData as JSON text, which the extension cannot decode: refused.
  const literal = await start('{"lockScreen":{"type":"VStack","children":{"type":"Text","children":"Hello","props":{}},"props":{}}}');
  assert.equal(literal.status, 422, JSON.stringify(literal.json));
  assert.equal(literal.json.error.code, 'invalid-ui');
  const started = await start(hello);
  assert.equal(started.status, 202, JSON.stringify(started.json));
  const afterStart = (await world.service('GET', '/v1/activities/some-name?wait=20')).json;
  assert.equal(afterStart.deliveries[0].state, 'sent', JSON.stringify(afterStart.deliveries));
  const activity = (await world.phone('GET', '/simulator/v1/activities')).json.find((a) => a.attributes.name === 'some-name');
  assert.ok(activity, 'the phone started the activity');
  assert.deepEqual(Object.keys(activity.attributes).sort(), ['deepLinkUrl', 'name'], 'VoltraAttributes keeps its two keys only');

  // activityTokenReceived, as the page shows it: the token goes under the activity's name.
  await emit('activityTokenReceived', { activityName: 'some-name', pushToken: activity.pushToken, timestamp: 1764145755, type: 'update' });
  await client.drain();
  const tokens = (await world.service('GET', '/v1/activities/some-name')).json.tokens;
  assert.deepEqual(tokens.map((t) => [t.deviceID, t.token]), [[installationID, `${activity.pushToken.slice(0, 8)}…`]]);

  // The page's update: content-state.uiJsonData.
  const arrived = await render({ lockScreen: { type: 'Text', children: 'Driver arrived' } });
  const updated = await world.service('POST', '/v1/activities/some-name/update', { contentState: { uiJsonData: arrived } });
  assert.equal(updated.status, 202, JSON.stringify(updated.json));
  const afterUpdate = (await world.service('GET', '/v1/activities/some-name?wait=20')).json;
  assert.equal(afterUpdate.deliveries[0].state, 'sent', JSON.stringify(afterUpdate.deliveries));
  assert.equal((await world.activity(activity.id)).contentState.uiJsonData, arrived);

  // A tap in the activity: the simulated phone reports it under the name, and Voltra's interaction event is posted once.
  const tapped = await world.phone('POST', `/simulator/v1/activities/${activity.id}/tap`, { action: 'tip' });
  assert.equal(tapped.status, 200, JSON.stringify(tapped.json));
  assert.equal(tapped.json.logicalActivityID, 'some-name');
  const tap = { source: 'some-name', identifier: 'tip', payload: '', timestamp: 1764145760.5 };
  await emit('interaction', tap);
  await emit('interaction', tap); // replayed from Voltra's App Group queue
  await client.drain();
  const interactions = (await world.service('GET', '/v1/activities/some-name/interactions')).json.interactions;
  assert.equal(interactions.length, 1, JSON.stringify(interactions));
  assert.equal(interactions[0].action, 'tip');

  // The page's end, dismissed at once; Voltra reports the state, and the token leaves the service.
  const ended = await world.service('POST', '/v1/activities/some-name/end', { contentState: { uiJsonData: arrived }, dismissalDate: '2022-09-14T17:41:00Z' });
  assert.equal(ended.status, 202, JSON.stringify(ended.json));
  const afterEnd = (await world.service('GET', '/v1/activities/some-name?wait=20')).json;
  assert.equal(afterEnd.deliveries[0].state, 'sent', JSON.stringify(afterEnd.deliveries));
  assert.notEqual((await world.activity(activity.id))?.state ?? 'dismissed', 'active');
  await emit('stateChange', { activityName: 'some-name', activityState: 'dismissed', timestamp: 1764145770 });
  await client.drain();
  assert.deepEqual((await world.service('GET', '/v1/activities/some-name')).json.tokens, []);
});
