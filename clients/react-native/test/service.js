// A real `liveline serve` for the tests: the binary built by `swift build` (or LIVELINE_BIN), on a
// free port, with its SQLite file in a temporary directory. Ready when it prints "Ready.".
import { spawn } from 'node:child_process';
import { createHmac, generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const binary = process.env.LIVELINE_BIN ?? resolve(here, '../../../.build/debug/liveline');
export const bundle = 'com.example.flights';

export function token() { return randomBytes(32).toString('hex'); }

/** What the app's backend signs: an HS256 JWT with the claims, valid 10 minutes. */
export function signGrant(secret, claims) {
  const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const head = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ ...claims, exp: Math.floor(Date.now() / 1000) + 600 })}`;
  return `${head}.${createHmac('sha256', secret).update(head).digest('base64url')}`;
}

function start(database) {
  // The first start writes the admin key to a 0600 file (never to standard output); a restart reads the same one.
  const keyFile = join(dirname(database), 'admin.key');
  return new Promise((resolvePromise, reject) => {
    const child = spawn(binary, ['serve', '--port', '0', '--database', database, '--admin-key-file', keyFile], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const onData = (chunk) => {
      out += chunk.toString();
      if (out.includes('Ready.')) {
        const url = /listening on (\S+)/.exec(out)?.[1];
        const admin = existsSync(keyFile) ? readFileSync(keyFile, 'utf8').trim() : null;
        resolvePromise({ child, url, admin });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', reject);
    child.on('exit', (code) => { if (!out.includes('Ready.')) reject(new Error(`liveline serve exited (${code}):\n${out}`)); });
  });
}

export async function startService() {
  const directory = mkdtempSync(join(tmpdir(), 'liveline-rn-'));
  const database = join(directory, 'liveline.db');
  let running = await start(database);
  const adminKey = running.admin;
  const call = async (method, path, body, key = adminKey) => {
    const response = await fetch(running.url + path, { method, headers: { Authorization: `Bearer ${key}` }, body: body ? JSON.stringify(body) : undefined });
    const text = await response.text();
    return { status: response.status, json: text ? JSON.parse(text) : null };
  };
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' });
  const app = await call('POST', '/v1/apps', { bundleID: bundle, teamID: 'TEAM000001', keyID: 'KEY0000001', key: pem, environment: 'sandbox' });
  if (app.status !== 201) throw new Error(`app: ${JSON.stringify(app.json)}`);
  const appKey = (await call('POST', '/v1/keys', { scope: 'app' })).json.key;
  const tokenSecret = (await call('PUT', `/v1/apps/${bundle}/token-secret`, {})).json.secret;
  return {
    get url() { return running.url; },
    appKey,
    tokenSecret,
    call,
    /** The update tokens of an activity, as prefixes, by device. */
    async tokens(activityID) {
      const r = await call('GET', `/v1/activities/${encodeURIComponent(activityID)}`);
      if (r.status === 404) return {};
      return Object.fromEntries((r.json.tokens ?? []).map((t) => [t.deviceID, t.token]));
    },
    async stop() {
      const exited = new Promise((r) => running.child.once('exit', r));
      running.child.kill('SIGTERM');
      await exited;
    },
    /** A new process on the same database. */
    async restart() { running = await start(database); },
    async close() { await this.stop(); rmSync(directory, { recursive: true, force: true }); },
  };
}

/** A clock the uploader's waits move, so no test sleeps. */
export function fakeClock() {
  let t = 1_800_000_000_000;
  return { now: () => t, sleep: async (ms) => { t += ms; }, advance: (ms) => { t += ms; } };
}

export const prefix = (t) => `${t.slice(0, 8)}…`;
