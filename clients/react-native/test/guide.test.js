// The flight-tracker guide's JavaScript, run unchanged over an emulation of its native module,
// against a real `liveline serve` pushing to a real `liveline simulator` (a simulated iPhone).
//
// guide/FlightActivityService.ts and guide/App.tsx are verbatim copies of the guide
// (../shared/seeds/000_*.txt: "FlightActivityService.ts" and "App Integration (React Example)");
// when the seed is found next to the repository, the test first checks they still match it. Node
// runs no TypeScript or JSX, so at test time, on a copy, the type annotations are stripped (the
// interfaces, `private`, `: Type` of the fields, parameters and results, `useState<…>`, the
// `export type` line) and the App's JSX view is replaced by the handlers it binds. Nothing else changes.
//
// The emulated native layer is clients/react-native/ios/LiveActivityModule.swift in JavaScript:
// `startFlightActivity` asks the simulated iPhone to start the activity (as Activity.request does),
// registers its update token with Liveline through this package's client (as the module's
// LivelineKit coordinator does), then emits `onPushTokenUpdate` {activityId, pushToken};
// `endFlightActivity` ends it on the phone and deletes the token. The client creates the phone's
// installation with the app key; an activity the app started is the installation's once the app's
// backend grants it (the module's `LivelineGrantURL`, emulated by `activityGrantProvider` signing as
// the backend would). The guide's backend route `/flight-update` is the one line
// docs/from-the-guide.md gives it: POST /v1/activities/{id}/update.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createLivelineClient, memoryStorage } from '../index.js';
import { bundle, referenceDate, repo, schemaFile, startWorld, within } from './liveline-world.js';
import { signGrant } from './service.js';

const here = dirname(fileURLToPath(import.meta.url));
const type = 'FlightActivityAttributes';

/** The guide's code, made runnable by node (see the header), imported fresh. */
async function loadGuide(directory) {
  let service = readFileSync(join(here, 'guide/FlightActivityService.ts'), 'utf8');
  let app = readFileSync(join(here, 'guide/App.tsx'), 'utf8');
  const replace = (text, from, to) => {
    const next = text.replace(from, to);
    assert.notEqual(next, text, `the guide's code no longer has ${from}`);
    return next;
  };
  service = replace(service, "import { NativeModules, NativeEventEmitter, Platform } from 'react-native';",
    'const { NativeModules, NativeEventEmitter, Platform } = globalThis.__guideReactNative;');
  service = service.replace(/^interface \w+ \{[\s\S]*?^\}\n/gm, '');
  service = replace(service, 'private eventEmitter: NativeEventEmitter | null = null;', 'eventEmitter = null;');
  service = replace(service, 'private pushTokenCallback: ((token: string, activityId: string) => void) | null = null;', 'pushTokenCallback = null;');
  service = replace(service, 'private setupEventListeners()', 'setupEventListeners()');
  service = replace(service, '(flightData: FlightData): Promise<ActivityResult>', '(flightData)');
  service = replace(service, '(activityId: string, updateData: UpdateData): Promise<{ success: boolean }>', '(activityId, updateData)');
  service = replace(service, '(activityId: string): Promise<{ success: boolean }>', '(activityId)');
  service = replace(service, '(callback: (token: string, activityId: string) => void)', '(callback)');
  service = replace(service, 'export type { FlightData, UpdateData, ActivityResult };', '');
  app = replace(app, "import React, { useState, useCallback } from 'react';", 'const { useState, useCallback } = globalThis.__guideReact;');
  app = replace(app, "import { View, Button, Text, Alert } from 'react-native';", 'const { Alert } = globalThis.__guideReactNative;');
  app = replace(app, "import { flightActivityService, FlightData } from './FlightActivityService';", "import { flightActivityService } from './FlightActivityService.mjs';");
  app = replace(app, 'useState<string | null>(null)', 'useState(null)');
  app = replace(app, 'const flightData: FlightData = {', 'const flightData = {');
  app = replace(app, /\n  return \(\n    <View[\s\S]*?\n  \);\n\};/, '\n  return { activityId, isLoading, startTracking, simulateGateChange, simulateBoarding, endTracking };\n};');
  writeFileSync(join(directory, 'FlightActivityService.mjs'), service);
  writeFileSync(join(directory, 'App.mjs'), app);
  return (await import(pathToFileURL(join(directory, 'App.mjs')).href)).default;
}

/** useState and useCallback, enough to call a function component again after its state changed. */
function renderer() {
  const slots = [];
  let index = 0;
  globalThis.__guideReact = {
    useState(initial) {
      const k = index++;
      if (!(k in slots)) slots[k] = initial;
      return [slots[k], (value) => { slots[k] = typeof value === 'function' ? value(slots[k]) : value; }];
    },
    useCallback(fn) { index++; return fn; },
  };
  return (Component) => { index = 0; return Component(); };
}

let world;

before(async () => { world = await startWorld([schemaFile]); });
after(async () => { await world?.close(); });

test('the copies of the guide are the guide, verbatim', (t) => {
  const seeds = [resolve(repo, '../shared/seeds'), resolve(repo, '../../shared/seeds')].find((d) => existsSync(d));
  if (!seeds) { t.skip('the seeds are not next to this repository'); return; }
  const guide = readFileSync(join(seeds, readdirSync(seeds).find((f) => f.startsWith('000_'))), 'utf8');
  for (const file of ['FlightActivityService.ts', 'App.tsx']) {
    assert.ok(guide.includes(readFileSync(join(here, 'guide', file), 'utf8').trimEnd()), `${file} differs from the guide`);
  }
});

test("the guide's App and FlightActivityService start, update and end a flight through Liveline on a simulated iPhone", async () => {
  // The app side: this package's client, as LiveActivityModule's LivelineKit coordinator registers.
  const deviceID = `phone-install-${randomUUID().slice(0, 8)}`;
  // The backend's grant route (docs/from-the-guide.md): it signs a grant for the installation's activity.
  const grants = [];
  const activityGrantProvider = (installationID, activityID) => {
    grants.push(activityID);
    return signGrant(world.tokenSecret, { activityID, deviceID: installationID, aud: bundle });
  };
  const client = createLivelineClient({ baseURL: world.url, appKey: world.appKey, deviceID, storage: memoryStorage(), secureStorage: memoryStorage(), activityGrantProvider });
  await client.registerDevice({ bundleID: bundle, iosVersion: '18.2', userID: 'ana' });
  await client.drain();
  const installationID = await client.installationID();
  assert.match(installationID ?? '', /^inst_/, 'the client created its installation');

  // The emulated native module and React Native's parts the guide imports.
  const listeners = new Map();
  const native = {
    async startFlightActivity(flightData) {
      const attributes = {
        flightNumber: flightData.flightNumber ?? '', origin: flightData.origin ?? '', destination: flightData.destination ?? '',
        scheduledDeparture: (flightData.scheduledDeparture ?? 0) - referenceDate, airline: flightData.airline ?? '',
      };
      const contentState = {
        flightStatus: flightData.status ?? 'On Time', gateNumber: flightData.gate ?? 'TBD',
        boardingTime: (flightData.boardingTime ?? 0) - referenceDate, delayMinutes: flightData.delayMinutes ?? 0, isBoarding: false,
      };
      const started = await world.phone('POST', '/simulator/v1/devices/phone/activities', { bundleID: bundle, attributesType: type, attributes, contentState });
      if (started.status !== 201) throw Object.assign(new Error(`Failed to start Live Activity: ${JSON.stringify(started.json)}`), { code: 'START_FAILED' });
      const { id, pushToken } = started.json;
      // LivelineKit's coordinator: the token under the logical id (the device id: the guide's type has no livelineActivityID).
      await client.setActivityToken(id, pushToken, type);
      await client.drain();
      // ActivityKit yields the token after request() returned.
      setImmediate(() => (listeners.get('onPushTokenUpdate') ?? []).forEach((fn) => fn({ activityId: id, pushToken })));
      return { activityId: id, success: true };
    },
    async updateFlightActivity(activityId) {
      if (!(await world.activity(activityId))) throw Object.assign(new Error(`Activity not found: ${activityId}`), { code: 'NOT_FOUND' });
      return { success: true };
    },
    async endFlightActivity(activityId) {
      const ended = await world.phone('POST', `/simulator/v1/activities/${activityId}/end`, { dismissal: 'immediate' });
      if (ended.status !== 200) throw Object.assign(new Error('Activity not found'), { code: 'NOT_FOUND' });
      await client.deleteActivityToken(activityId);
      await client.drain();
      return { success: true };
    },
  };
  const alerts = [];
  globalThis.__guideReactNative = {
    Platform: { OS: 'ios' },
    NativeModules: { LiveActivityModule: native },
    NativeEventEmitter: class {
      addListener(event, fn) { listeners.set(event, [...(listeners.get(event) ?? []), fn]); return { remove() {} }; }
    },
    Alert: { alert: (title, message) => alerts.push(`${title}: ${message}`) },
  };
  // The guide's backend endpoint the App posts tokens to: answered here, and recorded.
  let tokenPosted;
  const posted = new Promise((r) => { tokenPosted = r; });
  const realFetch = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    if (String(input) === 'https://your-api.com/register-push-token') { tokenPosted(JSON.parse(init.body)); return new Response('{}', { status: 200 }); }
    return realFetch(input, init);
  };
  try {
    const render = renderer();
    const FlightTrackerApp = await loadGuide(world.directory);
    let ui = render(FlightTrackerApp);
    assert.equal(ui.activityId, null);

    // Start Tracking.
    await ui.startTracking();
    ui = render(FlightTrackerApp);
    assert.deepEqual(alerts, ['Success: Flight tracking started!']);
    const id = ui.activityId;
    assert.ok(id, 'the App holds the activity id the module resolved');
    const onPhone = (await world.phone('GET', '/simulator/v1/activities')).json.find((a) => a.id === id);
    assert.equal(onPhone.attributes.flightNumber, 'GA 2025');
    // The guide's callback got {activityId, pushToken} and posted it, as the guide has it.
    assert.deepEqual(await within('the App posts the token to /register-push-token', posted), { activityId: id, pushToken: onPhone.pushToken });
    // Liveline has the token, registered by the native layer under the guide's activityId.
    const tokens = (await world.service('GET', `/v1/activities/${encodeURIComponent(id)}`)).json.tokens;
    assert.deepEqual(tokens.map((t) => [t.deviceID, t.token]), [[installationID, `${onPhone.pushToken.slice(0, 8)}…`]]);
    assert.deepEqual(grants, [id], 'the activity the app started was granted by the backend');

    // Simulate Gate Change: the App updates the activity; the backend's /flight-update sends it through Liveline.
    await ui.simulateGateChange();
    const boardingTime = new Date((Date.now() / 1000 + 2700) * 1000);
    const flightUpdate = { status: 'Gate Changed', gate: 'B7', delayMinutes: 15, boardingTime: boardingTime.getTime() / 1000 };
    const sent = await world.service('POST', `/v1/activities/${encodeURIComponent(id)}/update`, {
      contentState: { flightStatus: flightUpdate.status, gateNumber: flightUpdate.gate, boardingTime: new Date(flightUpdate.boardingTime * 1000).toISOString(),
        delayMinutes: flightUpdate.delayMinutes || 0, isBoarding: flightUpdate.isBoarding || false },
      alert: { title: 'Flight Update', body: `Gate: ${flightUpdate.gate} | ${flightUpdate.status}` },
    });
    assert.equal(sent.status, 202, JSON.stringify(sent.json));
    const settled = (await world.service('GET', `/v1/activities/${encodeURIComponent(id)}?wait=20`)).json;
    assert.equal(settled.deliveries[0].state, 'sent', JSON.stringify(settled.deliveries));
    const updated = (await world.phone('GET', '/simulator/v1/activities')).json.find((a) => a.id === id);
    assert.equal(updated.contentState.gateNumber, 'B7');
    assert.equal(updated.contentState.flightStatus, 'Gate Changed');
    assert.equal(Math.round(updated.contentState.boardingTime + referenceDate), Math.round(boardingTime.getTime() / 1000), 'the phone shows the time the backend meant');

    // Start Boarding, then End Tracking: the phone's activity ends and Liveline drops its token.
    await ui.simulateBoarding();
    await ui.endTracking();
    ui = render(FlightTrackerApp);
    assert.equal(ui.activityId, null);
    const ended = (await world.phone('GET', '/simulator/v1/activities')).json.find((a) => a.id === id);
    assert.ok(!ended || ended.state === 'dismissed' || ended.state === 'ended', `the phone's activity is over: ${ended?.state}`);
    const left = (await world.service('GET', `/v1/activities/${encodeURIComponent(id)}`)).json.tokens;
    assert.deepEqual(left, []);
  } finally {
    globalThis.fetch = realFetch;
  }
});
