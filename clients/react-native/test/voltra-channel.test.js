// An activity a Voltra app starts itself on a channel (iOS 18, `startLiveActivity(…, { channelId })`),
// against a real `liveline serve` and a simulated iPhone: the backend binds the channel to a logical
// id, the app's start is reported through `followVoltraChannels` (Voltra's events never carry the
// channel), the backend's update and end by the logical id reach the phone, and the report is
// withdrawn on Voltra's `stateChange` to ended.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createLivelineClient, followVoltraChannels, memoryStorage, wireVoltra } from '../index.js';
import { fakeClock, signGrant } from './service.js';
import { bundle, run, startWorld } from './liveline-world.js';

let world;
before(async () => { world = await startWorld(['VoltraAttributes']); });
after(async () => { await world?.close(); });

async function render(layout) { return (await run(['ui', 'encode', '-'], JSON.stringify(layout))).trim(); }

/** Voltra's `startLiveActivity` on the simulated phone: the app's own Activity.request, on a channel when given one. */
const voltraStart = async (variants, options) => {
  const r = await world.phone('POST', '/simulator/v1/devices/phone/activities', {
    bundleID: bundle, attributesType: 'VoltraAttributes', attributes: { name: options.activityName },
    contentState: { uiJsonData: await render(variants) }, ...(options.channelId ? { channelID: options.channelId } : {}),
  });
  assert.equal(r.status, 201, JSON.stringify(r.json));
  return r.json.id;
};

function voltraApp({ grants }) {
  const clock = fakeClock();
  const client = createLivelineClient({ baseURL: world.url, appKey: world.appKey, deviceID: `voltra-${randomUUID().slice(0, 8)}`,
    storage: memoryStorage(), secureStorage: memoryStorage(), now: clock.now, sleep: clock.sleep,
    activityGrantProvider: grants ? async (installationID, activityID) => signGrant(world.tokenSecret, { deviceID: installationID, activityID }) : undefined });
  const listeners = new Map();
  wireVoltra((event, callback) => { listeners.set(event, callback); return { remove: () => listeners.delete(event) }; }, client, { drain: false });
  const emit = (event, payload) => listeners.get(event)({ type: event, ...payload });
  return { client, emit, start: followVoltraChannels(voltraStart, client, { drain: false }) };
}

test('a Voltra app starts an activity on the backend\'s channel; the backend updates and ends it by logical id', async () => {
  const made = await world.service('POST', '/v1/channels', { bundleID: bundle, activityID: 'match-9', attributesType: 'VoltraAttributes' });
  assert.equal(made.status, 201, JSON.stringify(made.json));
  const channelID = made.json.channelID;

  const { client, emit, start } = voltraApp({ grants: true });
  await client.registerDevice({ bundleID: bundle, iosVersion: '18.2' });
  await client.drain();
  const installationID = await client.installationID();
  const id = await start({ lockScreen: { type: 'Text', children: 'Kick-off' } }, { activityName: 'match-9', channelId: channelID });
  const started = await world.activity(id);
  assert.equal(started.channelID, channelID, JSON.stringify(started));
  assert.equal(started.pushToken ?? null, null, 'a channel activity has no update token');
  const reported = await client.drain({ withinMs: 5000 });
  assert.deepEqual([reported.dropped, reported.remaining], [[], 0], JSON.stringify(reported));

  const goal = await render({ lockScreen: { type: 'Text', children: '1 - 0' } });
  const update = await world.service('POST', '/v1/activities/match-9/update', { contentState: { uiJsonData: goal } });
  assert.equal(update.status, 202, JSON.stringify(update.json));
  const settled = (await world.service('GET', '/v1/activities/match-9?wait=20')).json;
  assert.deepEqual(settled.deliveries.map((d) => [d.target, d.state]), [['channel', 'sent']]);
  assert.equal((await world.activity(id)).contentState.uiJsonData, goal, 'the app-started activity shows the update');
  const status = settled.devices.find((d) => d.deviceID === installationID);
  assert.ok(status, `the installation is in the activity's status: ${JSON.stringify(settled.devices)}`);
  assert.deepEqual([status.state, status.reachable, status.channelID, status.startedBy], ['active', true, channelID, 'app']);

  const end = await world.service('POST', '/v1/activities/match-9/end', { contentState: { uiJsonData: goal }, dismissImmediately: true });
  assert.equal(end.status, 202, JSON.stringify(end.json));
  await world.service('GET', '/v1/activities/match-9?wait=20');
  assert.notEqual((await world.activity(id))?.state ?? 'dismissed', 'active', 'the phone ended it');
  await emit('stateChange', { activityName: 'match-9', activityState: 'dismissed', timestamp: 1764145800 });
  const left = await client.drain({ withinMs: 5000 });
  assert.ok(left.sent.some((s) => s.includes('no longer follows')), JSON.stringify(left));
});

test('without the backend\'s grant the report is refused as for an unknown activity, and dropped', async () => {
  const made = await world.service('POST', '/v1/channels', { bundleID: bundle, activityID: 'match-10' });
  assert.equal(made.status, 201, JSON.stringify(made.json));
  const { client, start } = voltraApp({ grants: false });
  await client.registerDevice({ bundleID: bundle, iosVersion: '18.2' });
  await client.drain();
  await start({ lockScreen: { type: 'Text', children: 'Kick-off' } }, { activityName: 'match-10', channelId: made.json.channelID });
  const report = await client.drain({ withinMs: 5000 });
  assert.equal(report.dropped.length, 1, JSON.stringify(report));
  assert.match(report.dropped[0], /404.*activity match-10 is not known|not known/, report.dropped[0]);
  const status = (await world.service('GET', '/v1/activities/match-10')).json;
  assert.deepEqual(status.devices, [], 'the service counts no member it did not grant');
});
