// Older app builds still installed (docs/traps.md): the RN client reports the app's build and the
// schema version of each attributes type at registration, checked before anything is queued.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createLivelineClient, memoryStorage } from '../index.js';
import { bundle, fakeClock, startService } from './service.js';

let service;
before(async () => { service = await startService(); });
after(async () => { await service.close(); });

let devices = 0;
function makeClient() {
  const clock = fakeClock();
  return createLivelineClient({ baseURL: service.url, appKey: service.appKey, deviceID: `build-phone-${++devices}`, storage: memoryStorage(),
    now: clock.now, sleep: clock.sleep, random: () => 0.5, log: () => {} });
}

test('the build, version and schema versions reach the service; the next build registers again', async () => {
  const client = makeClient();
  const device = { bundleID: bundle, iosVersion: '18.2', appBuild: '41', appVersion: '1.3', schemaVersions: { VoltraAttributes: 'v1', FlightAttributes: '1' } };
  await client.registerDevice(device);
  assert.deepEqual((await client.drain()).sent, [`device ${client.deviceID}`]);
  const id = await client.installationID();
  const first = await service.call('GET', `/v1/devices/${id}`);
  assert.equal(first.json.appBuild, '41');
  assert.equal(first.json.appVersion, '1.3');
  assert.deepEqual(first.json.schemaVersions, { FlightAttributes: '1', VoltraAttributes: 'v1' });
  // The same again: nothing to send. The upgraded build: registered again.
  await client.registerDevice(device);
  assert.deepEqual(await client.pending(), []);
  await client.registerDevice({ ...device, appBuild: '52', appVersion: '1.4', schemaVersions: { FlightAttributes: '2' } });
  assert.deepEqual((await client.drain()).sent, [`device ${client.deviceID}`]);
  const upgraded = await service.call('GET', `/v1/devices/${id}`);
  assert.equal(upgraded.json.appBuild, '52');
  assert.deepEqual(upgraded.json.schemaVersions, { FlightAttributes: '2' });
});

test('a build the service would refuse is a TypeError naming the field, and nothing is queued', async () => {
  const client = makeClient();
  const base = { bundleID: bundle, iosVersion: '18.2' };
  const bad = [
    [{ appBuild: 52 }, /appBuild must be a string/],
    [{ appBuild: '52 beta' }, /appBuild must be/],
    [{ appVersion: 'x'.repeat(65) }, /appVersion must be/],
    [{ schemaVersions: ['1'] }, /schemaVersions must be an object/],
    [{ schemaVersions: { 'Flight Attributes': '1' } }, /is not an attributes type name/],
    [{ schemaVersions: { FlightAttributes: 2 } }, /schemaVersions\.FlightAttributes must be a string/],
  ];
  for (const [fields, message] of bad) {
    await assert.rejects(client.registerDevice({ ...base, ...fields }), (e) => e instanceof TypeError && message.test(e.message), JSON.stringify(fields));
  }
  assert.deepEqual(await client.pending(), []);
});
