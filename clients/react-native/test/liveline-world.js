// The world the guide tests run in: a real `liveline serve` (SQLite, loopback) pushing over HTTP/2
// to a real `liveline simulator` with one simulated iPhone ("phone") and its dashboard's control
// routes. Keys are generated at run time. Used by guide*.test.js.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const repo = resolve(here, '../../..');
const binary = process.env.LIVELINE_BIN ?? resolve(repo, '.build/debug/liveline');
export const schemaFile = resolve(repo, 'Examples/FlightTracker/FlightActivityAttributes.schema.json');
export const bundle = 'com.example.flights';
/** 2001-01-01 in Unix seconds: ActivityKit's dates count from it. */
export const referenceDate = 978307200;

/** Runs a liveline command to its end; its standard output. */
export function run(args, input) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(binary, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '', err = '';
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`liveline ${args.join(' ')} did not finish within 30 s`)); }, 30_000);
    child.stdout.on('data', (c) => { out += c; });
    child.stderr.on('data', (c) => { err += c; });
    child.on('exit', (code) => { clearTimeout(timer); code === 0 ? resolvePromise(out) : reject(new Error(`liveline ${args.join(' ')} exited ${code}: ${err}`)); });
    child.stdin.end(input ?? '');
  });
}

/** Starts a liveline command; resolves with its output once it printed "Ready.", or fails by the deadline. */
function launch(args, env = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let out = '';
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`liveline ${args[0]} not ready within 30 s:\n${out}`)); }, 30_000);
    const onData = (chunk) => {
      out += chunk.toString();
      if (out.includes('Ready.')) { clearTimeout(timer); resolvePromise({ child, out }); }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => { if (!out.includes('Ready.')) { clearTimeout(timer); reject(new Error(`liveline ${args[0]} exited (${code}):\n${out}`)); } });
  });
}

async function stop(child) {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/** `promise`, or a failure naming `what` after `ms`. */
export function within(what, promise, ms = 10_000) {
  let timer;
  const deadline = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`not within ${ms} ms: ${what}`)), ms); });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/**
 * The simulator (its phone's app registers `activityTypes`), the service (with the example's schema
 * file), the app registered with a generated key, an app key and the app's token secret.
 */
export async function startWorld(activityTypes) {
  const directory = mkdtempSync(join(tmpdir(), 'liveline-guide-'));
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' });
  writeFileSync(join(directory, 'key.p8'), pem);
  writeFileSync(join(directory, 'simulator.json'), JSON.stringify({
    environment: 'sandbox',
    keys: [{ keyID: 'KEY0000001', teamID: 'TEAM000001', p8: 'key.p8' }],
    apps: [{ bundleID: bundle, teamID: 'TEAM000001' }],
    devices: [{ id: 'phone', name: 'iPhone 16', iOS: '18.2', apps: [{ bundleID: bundle, activityTypes }] }],
  }));
  const simulator = await launch(['simulator', '--config', join(directory, 'simulator.json'), '--port', '0', '--state-dir', join(directory, 'sim'),
    '--dashboard', '--dashboard-port', '0']);
  const apns = /listening on https:\/\/(\S+)/.exec(simulator.out)[1];
  // The dashboard prints its URL once, with its access token (docs/security.md, "Dashboards").
  const dashboardURL = new URL(/Dashboard: (\S+)/.exec(simulator.out)[1]);
  const dashboard = dashboardURL.origin;
  const dashboardToken = dashboardURL.searchParams.get('token');
  const ca = /CA file: (\S+)/.exec(simulator.out)[1];
  let serve;
  try {
    serve = await launch(['serve', '--port', '0', '--database', join(directory, 'liveline.db'), '--apns-host', apns, '--ca-file', ca,
      '--admin-key-file', join(directory, 'admin.key')], { LIVELINE_SCHEMA_FILES: schemaFile });
  } catch (error) { await stop(simulator.child); throw error; }
  const url = /listening on (\S+)/.exec(serve.out)[1];
  // The first admin key goes to a 0600 file, never to standard output.
  const admin = readFileSync(join(directory, 'admin.key'), 'utf8').trim();
  const call = async (base, method, path, body, key) => {
    const headers = { 'content-type': 'application/json' };
    if (key) headers.Authorization = `Bearer ${key}`;
    if (base === dashboard) headers['X-Liveline-Dashboard-Token'] = dashboardToken;
    const response = await fetch(base + path, { method, headers, body: body ? JSON.stringify(body) : undefined });
    const text = await response.text();
    return { status: response.status, json: text ? JSON.parse(text) : null };
  };
  const registered = await call(url, 'POST', '/v1/apps', { bundleID: bundle, teamID: 'TEAM000001', keyID: 'KEY0000001', key: pem, environment: 'sandbox' }, admin);
  assert.equal(registered.status, 201, JSON.stringify(registered.json));
  const appKey = (await call(url, 'POST', '/v1/keys', { scope: 'app' }, admin)).json.key;
  // The app's token secret: the backend signs user tokens and activity grants with it (docs/security.md).
  const secret = await call(url, 'PUT', `/v1/apps/${bundle}/token-secret`, {}, admin);
  assert.equal(secret.status, 200, JSON.stringify(secret.json));
  const tokenSecret = secret.json.secret;
  return {
    directory, url, appKey, tokenSecret,
    /** The admin API (the backend's side). */
    service: (method, path, body) => call(url, method, path, body, admin),
    /** The simulated iPhone: the dashboard's control and inspection routes. */
    phone: (method, path, body) => call(dashboard, method, path, body),
    /** The phone's activity `id`, as the simulator has it. */
    async activity(id) { return (await call(dashboard, 'GET', '/simulator/v1/activities')).json.find((a) => a.id === id); },
    async close() {
      await stop(serve.child);
      await stop(simulator.child);
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
