// The app side of `liveline serve` for React Native: plain JavaScript, no build step.
// Same rules as LivelineKit's TokenUploader (docs/app-side.md): a persistent queue, only the newest
// token per slot, the device before its tokens, retries with backoff and jitter, a deadline per
// wake, interactions with an idempotency key delivered once. Logs carry ids and token prefixes only.

const STORAGE_KEY = 'liveline.uploads.v1';
const INSTALLATION_KEY = 'liveline.installation.v1';
const DELIVERED_LIMIT = 500;

/** A build, version or schema version as the service takes it: 1 to 64 letters, digits, '.', '-' or '_'. */
const LABEL = /^[A-Za-z0-9._-]{1,64}$/;
/** An attributes type: the Swift type's name. */
const TYPE_NAME = /^[A-Za-z_.][A-Za-z0-9_.]{0,199}$/;

/**
 * Refuses, before anything is queued, what the service would answer 400 for: `appBuild`
 * (CFBundleVersion), `appVersion` (CFBundleShortVersionString), `schemaVersions` ({type: version}).
 */
function checkAppBuild(device) {
  for (const field of ['appBuild', 'appVersion']) {
    const v = device[field];
    if (v != null && (typeof v !== 'string' || !LABEL.test(v))) {
      throw new TypeError(`${field} must be a string of 1 to 64 letters, digits, '.', '-' or '_' (like "52"), got ${JSON.stringify(v)}`);
    }
  }
  const versions = device.schemaVersions;
  if (versions == null) return device;
  if (typeof versions !== 'object' || Array.isArray(versions)) {
    throw new TypeError(`schemaVersions must be an object of attributes type to version, like {FlightAttributes: "3"}, got ${JSON.stringify(versions)}`);
  }
  const entries = Object.entries(versions);
  if (entries.length > 50) throw new TypeError(`schemaVersions names ${entries.length} types; the limit is 50`);
  for (const [type, version] of entries) {
    if (!TYPE_NAME.test(type)) throw new TypeError(`schemaVersions: ${JSON.stringify(type)} is not an attributes type name`);
    if (typeof version !== 'string' || !LABEL.test(version)) {
      throw new TypeError(`schemaVersions.${type} must be a string of 1 to 64 letters, digits, '.', '-' or '_' (like "3"), got ${JSON.stringify(version)}`);
    }
  }
  return device;
}

/** The registration's `appBuild`, `appVersion` and `schemaVersions` (types in order), as PUT /v1/devices takes them. */
function appBuildFields(d) {
  const out = {};
  if (d.appBuild != null) out.appBuild = d.appBuild;
  if (d.appVersion != null) out.appVersion = d.appVersion;
  if (d.schemaVersions && Object.keys(d.schemaVersions).length) {
    out.schemaVersions = Object.fromEntries(Object.entries(d.schemaVersions).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }
  return out;
}

/** A call to the service failed: the status with the service's error code and message, or no answer. */
export class LivelineError extends Error {
  constructor(request, status, code, message) {
    super(status == null ? `${request}: no answer from the service: ${message}` : `${request}: ${status} ${code ?? 'error'}: ${message}`);
    this.name = 'LivelineError';
    this.request = request;
    this.status = status;
    this.code = code;
  }
  /** No answer, 408, 429, 5xx, 401/403: worth trying again; the token is kept. */
  get retryable() {
    const s = this.status;
    return s == null || s === 408 || s === 429 || s >= 500 || s === 401 || s === 403;
  }
  get unknownDevice() { return this.status === 404 && this.code === 'unknown-device'; }
}

/** Storage in memory, for tests; give the app AsyncStorage (getItem/setItem) instead. */
export function memoryStorage() {
  const map = new Map();
  return {
    async getItem(key) { return map.has(key) ? map.get(key) : null; },
    async setItem(key, value) { map.set(key, value); },
  };
}

const prefix = (token) => (token.length > 8 ? `${token.slice(0, 8)}…` : token);

function keyOf(op) {
  switch (op.kind) {
    case 'device': return `device|${op.device.deviceID}`;
    case 'pushToStart': return `push-to-start|${op.attributesType}|${op.deviceID}`;
    case 'activityToken': case 'deleteActivityToken': return `activity|${op.activityID}|${op.deviceID}`;
    case 'interaction': return `interaction|${op.interaction.idempotencyKey}`;
    case 'decodeFailure': return `decode-failure|${op.activityID}|${op.deviceID}`;
    case 'channelMember': case 'deleteChannelMember': return `member|${op.activityID}|${op.deviceID}`;
    default: throw new Error(`unknown operation ${op.kind}`);
  }
}

function summary(op) {
  switch (op.kind) {
    case 'device': return `device ${op.device.deviceID}`;
    case 'pushToStart': return `push-to-start ${op.attributesType} of ${op.deviceID} (${prefix(op.token)})`;
    case 'activityToken': return `token of ${op.deviceID} for ${op.activityID} (${prefix(op.token)})`;
    case 'deleteActivityToken': return `deletion of ${op.deviceID}'s token for ${op.activityID}`;
    case 'interaction': return `interaction ${op.interaction.action} on ${op.interaction.activityID} (${op.interaction.idempotencyKey})`;
    case 'decodeFailure': return `decode failure of ${op.deviceID} for ${op.activityID}`;
    case 'channelMember': return `${op.deviceID} follows channel ${op.token} for ${op.activityID}`;
    case 'deleteChannelMember': return `${op.deviceID} no longer follows the channel of ${op.activityID}`;
    default: return op.kind;
  }
}

const needsDevice = (op) => op.kind === 'pushToStart' || op.kind === 'activityToken' || op.kind === 'channelMember';

/** Exponential from baseMs up to maxMs, the upper half random. */
/**
 * A push-to-start token the service holds is reported again after this long: the service skips
 * push-to-start tokens it has not seen for a configured time (30 days by default).
 */
export const PUSH_TO_START_REPORT_INTERVAL_MS = 24 * 3600 * 1000;

/**
 * The `apsEnvironment` option: the build's `aps-environment` entitlement (`development` is APNs'
 * sandbox), as the native module's `getApsEnvironment()` reads it. Null or undefined: not sent,
 * and the service uses the app's default environment. Anything else is a mistake, refused here.
 */
export function tokenEnvironment(value) {
  if (value == null) return null;
  if (value === 'development' || value === 'sandbox') return 'sandbox';
  if (value === 'production') return 'production';
  throw new TypeError(`apsEnvironment must be 'sandbox' (or 'development') or 'production', got ${JSON.stringify(value)}`);
}

/**
 * A tap or decode failure answered 404 may name an id the service resolves later: the phone's own
 * ActivityKit activity id becomes an alias of the logical id once the token registration that
 * reports it arrives, and that may still be queued (or not yet issued). Such a report is kept and
 * retried for this long after it was queued, then dropped as definitive.
 */
export const UNRESOLVED_ACTIVITY_RETRY_MS = 24 * 3600 * 1000;

const mayResolveLater = (op, error) => (op.kind === 'interaction' || op.kind === 'decodeFailure')
  && error instanceof LivelineError && error.status === 404 && error.code === 'not-found';

/** An ActivityKit `Activity.id` (a UUID): what the service takes as `deviceActivityID`. */
const isActivityKitID = (id) => typeof id === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);

export function backoffDelay(attempts, random, baseMs = 1000, maxMs = 300000) {
  const ceiling = Math.min(baseMs * 2 ** Math.min(Math.max(attempts - 1, 0), 30), maxMs);
  return Math.round(ceiling / 2 + (ceiling / 2) * random);
}

/**
 * The uploader. Call `await client.load()` once at launch (it resumes the queue), then the setters,
 * then `drain()`.
 */
export function createLivelineClient(options) {
  const { deviceID, storage = memoryStorage() } = options;
  let { baseURL, appKey } = options;
  // The installation secret belongs in the platform's secure storage (e.g. react-native-keychain
  // behind getItem/setItem/removeItem); without one it falls back to `storage`, loudly.
  const secureStorage = options.secureStorage ?? storage;
  const userTokenProvider = options.userTokenProvider ?? null;
  const activityGrantProvider = options.activityGrantProvider ?? null;
  let installation = null;
  let creating = null;
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const now = options.now ?? (() => Date.now());
  const random = options.random ?? Math.random;
  const sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  const log = options.log ?? (() => {});
  const apsEnvironment = tokenEnvironment(options.apsEnvironment);
  let state = { sequence: 0, pending: {}, confirmed: {}, device: null, delivered: [] };
  let loaded = null;
  let running = null;

  async function load() {
    if (!loaded) {
      loaded = (async () => {
        const text = await storage.getItem(STORAGE_KEY);
        if (text) {
          try { state = { ...state, ...JSON.parse(text) }; } catch (e) { log(`liveline: the stored queue did not parse (${e.message}); starting empty`); }
        }
      })();
    }
    return loaded;
  }

  async function persist() { await storage.setItem(STORAGE_KEY, JSON.stringify(state)); }

  async function enqueue(op) {
    state.sequence += 1;
    state.pending[keyOf(op)] = { op, sequence: state.sequence, attempts: 0, notBefore: now(), queuedAt: now() };
    await persist();
    log(`liveline: queued ${summary(op)}`);
  }

  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

  async function enqueueToken(op) {
    await load();
    const key = keyOf(op);
    if (state.confirmed[key]?.token === op.token && (state.confirmed[key].deviceActivityID ?? null) === (op.deviceActivityID ?? null)
      && !dueForReport(op, state.confirmed[key])) {
      // Sent once: a token the service holds is not sent again (a push-to-start token is
      // reported again after PUSH_TO_START_REPORT_INTERVAL_MS, so the service sees it in use).
      if (state.pending[key]) { delete state.pending[key]; await persist(); }
      return;
    }
    if (state.pending[key] && same(state.pending[key].op, op)) return;
    await enqueue(op);
  }

  // Token environment: the build's aps-environment goes with every token (absent: the app's default).
  function withEnvironment(body) {
    if (apsEnvironment) body.environment = apsEnvironment;
    return body;
  }
  const dueForReport = (op, confirmed) =>
    op.kind === 'pushToStart' && (confirmed.confirmedAt == null || now() - confirmed.confirmedAt >= PUSH_TO_START_REPORT_INTERVAL_MS);

  if (!options.secureStorage) (options.log ?? console.warn)('liveline: no secureStorage given; the installation secret is kept in plain storage (give react-native-keychain or the like)');

  async function loadInstallation() {
    if (installation) return installation;
    const text = await secureStorage.getItem(INSTALLATION_KEY);
    if (text) { try { installation = JSON.parse(text); } catch { installation = null; } }
    return installation;
  }

  async function forgetInstallation() {
    installation = null;
    if (secureStorage.removeItem) await secureStorage.removeItem(INSTALLATION_KEY); else await secureStorage.setItem(INSTALLATION_KEY, '');
  }

  /** The installation, created with the app key on first need (once, however many calls need it). */
  async function ensureInstallation(d) {
    const stored = await loadInstallation();
    if (stored) return stored;
    if (!creating) {
      creating = (async () => {
        const r = await call('POST', ['v1', 'installations'], { bundleID: d.bundleID, iosVersion: d.iosVersion, frequentUpdates: !!d.frequentUpdates }, {}, appKey);
        installation = { installationID: r.json.installationID, secret: r.json.secret };
        await secureStorage.setItem(INSTALLATION_KEY, JSON.stringify(installation));
        return installation;
      })().finally(() => { creating = null; });
    }
    return creating;
  }

  /** A device call with the installation credential; without one, or when the service forgot it, the device registers again. */
  async function deviceCall(method, segments, body, headers = {}, given = null) {
    const cred = given ?? await loadInstallation();
    if (!cred) throw new LivelineError(`${method} (device call)`, 404, 'unknown-device', 'no installation yet: the device registers first');
    try {
      return await call(method, segments(cred.installationID), body, headers, cred.secret);
    } catch (e) {
      if (e instanceof LivelineError && e.status === 401) {
        await forgetInstallation();
        throw new LivelineError(e.request, 404, 'unknown-device', 'the service no longer knows this installation; registering again');
      }
      throw e;
    }
  }

  async function call(method, segments, body, headers = {}, bearer = appKey) {
    const path = '/' + segments.map(encodeURIComponent).join('/');
    const label = `${method} ${path}`;
    let response;
    try {
      response = await fetchImpl(baseURL.replace(/\/$/, '') + path, {
        method,
        headers: { Authorization: `Bearer ${bearer}`, 'Content-Type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (e) {
      throw new LivelineError(label, null, null, e?.cause?.code ?? e?.message ?? String(e));
    }
    const text = await response.text();
    let json = null;
    try { json = text ? JSON.parse(text) : null; } catch { json = null; }
    if (response.status < 200 || response.status >= 300) {
      const error = new LivelineError(label, response.status, json?.error?.code ?? null, json?.error?.message ?? text.slice(0, 200));
      const retryAfter = Number(response.headers.get('retry-after'));
      if (retryAfter > 0) error.retryAfterMs = retryAfter * 1000;
      throw error;
    }
    return { status: response.status, json };
  }

  async function send(op) {
    switch (op.kind) {
      case 'device': {
        const d = op.device;
        const body = { bundleID: d.bundleID, iosVersion: d.iosVersion, frequentUpdates: !!d.frequentUpdates };
        Object.assign(body, appBuildFields(d));
        const cred = await ensureInstallation(d);
        if (d.userID) {
          body.userID = d.userID;
          // The user is bound only by a token the app's backend signed for this installation.
          const userToken = d.userToken ?? (userTokenProvider ? await userTokenProvider(cred.installationID, d.userID) : null);
          if (userToken) body.userToken = userToken;
        }
        return deviceCall('PUT', (id) => ['v1', 'devices', id], body, {}, cred);
      }
      case 'pushToStart':
        return deviceCall('PUT', (id) => ['v1', 'devices', id, 'push-to-start', op.attributesType], withEnvironment({ token: op.token }));
      case 'activityToken': {
        const body = withEnvironment({ token: op.token });
        if (op.attributesType) body.attributesType = op.attributesType;
        if (op.deviceActivityID) body.deviceActivityID = op.deviceActivityID;
        const path = (id) => ['v1', 'activities', op.activityID, 'tokens', id];
        try { return await deviceCall('PUT', path, body); } catch (e) {
          // The phone's activity id is already another activity's (the service refuses the alias,
          // naming it): the token still goes, under the logical id.
          if (e instanceof LivelineError && e.status === 409 && (e.code === 'alias-taken' || e.code === 'too-many-aliases') && body.deviceActivityID) {
            log(`liveline: ${e.message}; registering the token without it`);
            delete body.deviceActivityID;
            return deviceCall('PUT', path, body);
          }
          // Not an activity this installation holds yet: the backend may grant it.
          if (!(e instanceof LivelineError && e.status === 404 && e.code === 'not-found') || !activityGrantProvider) throw e;
          const grant = await activityGrantProvider((await loadInstallation()).installationID, op.activityID);
          if (!grant) throw e;
          return deviceCall('PUT', path, { ...body, grant });
        }
      }
      case 'channelMember': {
        // An activity the app started itself on a channel (iOS 18): the channel id travels as `token`.
        const body = { channelID: op.token };
        if (op.deviceActivityID) body.deviceActivityID = op.deviceActivityID;
        const path = (id) => ['v1', 'activities', op.activityID, 'channel-members', id];
        try { return await deviceCall('PUT', path, body); } catch (e) {
          if (e instanceof LivelineError && e.status === 409 && (e.code === 'alias-taken' || e.code === 'too-many-aliases') && body.deviceActivityID) {
            delete body.deviceActivityID;
            return deviceCall('PUT', path, body);
          }
          // The installation does not hold the activity yet: the backend may grant it.
          if (!(e instanceof LivelineError && e.status === 404 && e.code === 'not-found') || !activityGrantProvider) throw e;
          const grant = await activityGrantProvider((await loadInstallation()).installationID, op.activityID);
          if (!grant) throw e;
          return deviceCall('PUT', path, { ...body, grant });
        }
      }
      case 'deleteChannelMember':
        try { return await deviceCall('DELETE', (id) => ['v1', 'activities', op.activityID, 'channel-members', id]); } catch (e) {
          if (e instanceof LivelineError && e.status === 404) return null;
          throw e;
        }
      case 'deleteActivityToken':
        try { return await deviceCall('DELETE', (id) => ['v1', 'activities', op.activityID, 'tokens', id]); } catch (e) {
          if (e instanceof LivelineError && e.status === 404) return null; // nothing to delete: done
          throw e;
        }
      case 'interaction': {
        // The installation's credential names the device: no deviceID in the body.
        const i = op.interaction;
        const body = { action: i.action };
        if (i.payload !== undefined) body.payload = i.payload;
        return deviceCall('POST', () => ['v1', 'activities', i.activityID, 'interactions'], body, { 'Idempotency-Key': i.idempotencyKey });
      }
      case 'decodeFailure':
        return deviceCall('POST', () => ['v1', 'activities', op.activityID, 'decode-failures'], { error: op.error, failedAt: new Date(op.failedAt).toISOString() });
      default: throw new Error(`unknown operation ${op.kind}`);
    }
  }

  const deviceKey = () => `device|${deviceID}`;
  const blocked = () => state.pending[deviceKey()] != null || state.device == null;

  async function succeeded(entry) {
    const op = entry.op, key = keyOf(op);
    if (op.kind === 'device') state.device = op.device;
    else if (op.kind === 'pushToStart') state.confirmed[key] = { token: op.token, deviceID: op.deviceID, confirmedAt: now() };
    else if (op.kind === 'activityToken') state.confirmed[key] = { token: op.token, activityID: op.activityID, deviceID: op.deviceID, deviceActivityID: op.deviceActivityID ?? null };
    else if (op.kind === 'deleteActivityToken') delete state.confirmed[key];
    // A channel member report is kept like a token (the channel id), without activityID: reconcile leaves it alone.
    else if (op.kind === 'channelMember') state.confirmed[key] = { token: op.token, deviceID: op.deviceID, deviceActivityID: op.deviceActivityID ?? null };
    else if (op.kind === 'deleteChannelMember') delete state.confirmed[key];
    else if (op.kind === 'interaction') {
      state.delivered.push(op.interaction.idempotencyKey);
      if (state.delivered.length > DELIVERED_LIMIT) state.delivered.splice(0, state.delivered.length - DELIVERED_LIMIT);
    }
    // Replaced while on the wire: the newer one stays queued.
    if (state.pending[key]?.sequence === entry.sequence) delete state.pending[key];
    await persist();
  }

  async function failed(entry, error, report) {
    const op = entry.op, key = keyOf(op);
    if (state.pending[key]?.sequence !== entry.sequence) return;
    const retry = () => {
      const attempts = entry.attempts + 1;
      // The service said how long (429 over the rate limit, 503): not sooner.
      const delay = Math.max(backoffDelay(attempts, random()), error.retryAfterMs ?? 0);
      state.pending[key] = { ...entry, attempts, notBefore: now() + delay, queuedAt: entry.queuedAt ?? now() };
      log(`liveline: ${summary(op)} failed (${error.message}); attempt ${attempts + 1} in ${delay} ms`);
    };
    if (error instanceof LivelineError && error.unknownDevice) {
      const device = state.device ?? (state.pending[deviceKey()]?.op.device);
      if (device) {
        state.device = null;
        if (!state.pending[deviceKey()]) await enqueue({ kind: 'device', device });
      }
      retry();
    } else if (!(error instanceof LivelineError) || error.retryable) {
      retry();
    } else if (mayResolveLater(op, error) && now() - (entry.queuedAt ?? now()) < UNRESOLVED_ACTIVITY_RETRY_MS) {
      retry();
    } else {
      delete state.pending[key];
      report.dropped.push(`${summary(op)}: ${error.message}`);
      log(`liveline: dropped ${summary(op)}: ${error.message}`);
    }
    await persist();
  }

  function nextAttempt() {
    const device = state.pending[deviceKey()]?.notBefore;
    const isBlocked = blocked();
    const times = Object.values(state.pending).map((e) => {
      if (!(isBlocked && needsDevice(e.op))) return e.notBefore;
      return device == null ? null : Math.max(device, e.notBefore);
    }).filter((t) => t != null);
    return times.length ? Math.min(...times) : null;
  }

  async function run(deadline) {
    const report = { sent: [], dropped: [], remaining: 0, nextAttempt: null };
    for (;;) {
      const t = now();
      if (t >= deadline) break;
      const isBlocked = blocked();
      const ready = Object.values(state.pending).filter((e) => !(isBlocked && needsDevice(e.op)));
      const due = ready.filter((e) => e.notBefore <= t)
        .sort((a, b) => ((a.op.kind === 'device' ? 0 : 1) - (b.op.kind === 'device' ? 0 : 1)) || a.sequence - b.sequence);
      if (due.length === 0) {
        const next = ready.length ? Math.min(...ready.map((e) => e.notBefore)) : null;
        if (next == null || next >= deadline) break;
        await sleep(Math.max(1, next - t));
        continue;
      }
      const entry = due[0];
      try {
        await send(entry.op);
        await succeeded(entry);
        report.sent.push(summary(entry.op));
        log(`liveline: sent ${summary(entry.op)}`);
      } catch (error) {
        await failed(entry, error, report);
      }
    }
    report.remaining = Object.keys(state.pending).length;
    report.nextAttempt = nextAttempt();
    return report;
  }

  return {
    deviceID,
    load,
    /** The installation id the service issued (the device id the backend addresses), or null before the first registration. */
    async installationID() { return (await loadInstallation())?.installationID ?? null; },
    /** Points later requests at another address or key; the queue is kept. */
    configure(changes) {
      if (changes.baseURL) baseURL = changes.baseURL;
      if (changes.appKey) appKey = changes.appKey;
    },
    /** Registers or updates the device; sent before any token. */
    async registerDevice(device) {
      await load();
      const registration = { deviceID, bundleID: device.bundleID, iosVersion: device.iosVersion, userID: device.userID ?? null, frequentUpdates: !!device.frequentUpdates };
      if (device.userToken) registration.userToken = device.userToken;
      Object.assign(registration, appBuildFields(checkAppBuild(device)));
      if (same(state.device, registration) && !state.pending[deviceKey()]) return;
      await enqueue({ kind: 'device', device: registration });
    },
    /** An empty or missing token is ignored: the service keeps the one it has. */
    async setPushToStartToken(attributesType, token) {
      if (!token) return;
      await enqueueToken({ kind: 'pushToStart', token: token.toLowerCase(), attributesType, deviceID });
    },
    /** `deviceActivityID`: the phone's own ActivityKit `Activity.id`, if the app knows it; the service
     *  makes it an alias of `activityID` for this installation, so taps reported under it arrive. */
    async setActivityToken(activityID, token, attributesType, { deviceActivityID = null } = {}) {
      if (!token || !activityID) return;
      const op = { kind: 'activityToken', token: token.toLowerCase(), activityID, deviceID, attributesType: attributesType ?? null };
      if (deviceActivityID && deviceActivityID !== activityID) op.deviceActivityID = deviceActivityID;
      await enqueueToken(op);
    },
    /** The activity ended or was dismissed. */
    async deleteActivityToken(activityID) {
      await load();
      const op = { kind: 'deleteActivityToken', activityID, deviceID };
      const key = keyOf(op), pending = state.pending[key];
      if (!state.confirmed[key] && (!pending || pending.op.kind === 'deleteActivityToken')) return;
      await enqueue(op);
    },
    /** Deletes the tokens of activities that are no longer running (call at launch). */
    async reconcile(runningActivityIDs) {
      await load();
      const running = new Set(runningActivityIDs);
      const stale = new Set();
      for (const c of Object.values(state.confirmed)) if (c.activityID && !running.has(c.activityID)) stale.add(c.activityID);
      for (const e of Object.values(state.pending)) if (e.op.kind === 'activityToken' && !running.has(e.op.activityID)) stale.add(e.op.activityID);
      for (const id of [...stale].sort()) await this.deleteActivityToken(id);
    },
    /** An activity the app started itself with a channel (Voltra's `startLiveActivity(…, { channelId })`,
     *  iOS 18) follows the channel the backend bound to `activityID`: it has no update token, so this
     *  report is how the service counts it. Sent once per channel; on 404 `activityGrantProvider` is asked. */
    async followChannel(activityID, channelID, { deviceActivityID = null } = {}) {
      if (!activityID || !channelID) return;
      const op = { kind: 'channelMember', token: channelID, activityID, deviceID };
      if (isActivityKitID(deviceActivityID) && deviceActivityID !== activityID) op.deviceActivityID = deviceActivityID;
      await enqueueToken(op);
    },
    /** The app-started channel activity ended or was dismissed. */
    async leaveChannel(activityID) {
      await load();
      const op = { kind: 'deleteChannelMember', activityID, deviceID };
      const key = keyOf(op), pending = state.pending[key];
      if (!state.confirmed[key] && (!pending || pending.op.kind === 'deleteChannelMember')) return;
      await enqueue(op);
    },
    /** A tap, delivered once: a key delivered or queued is ignored. */
    async postInteraction(interaction) {
      await load();
      if (!interaction.idempotencyKey) throw new Error('an interaction needs an idempotencyKey (made once, when the tap happens)');
      const op = { kind: 'interaction', interaction };
      if (state.delivered.includes(interaction.idempotencyKey) || state.pending[keyOf(op)]) return;
      await enqueue(op);
    },
    /** The app's attributes type could not decode a content state of `activityID` (the logical id):
     *  `error` is the decoder's message, without the content. The service's status gives it as the reason. */
    async postDecodeFailure(activityID, error) {
      await load();
      const text = String(error ?? '').slice(0, 1000);
      if (!activityID || !text.trim()) throw new Error('a decode failure needs the activity id and the decoder\'s message');
      await enqueue({ kind: 'decodeFailure', activityID, deviceID, error: text, failedAt: now() });
    },
    /** What is queued, oldest first. */
    async pending() {
      await load();
      return Object.values(state.pending).sort((a, b) => a.sequence - b.sequence).map((e) => e.op);
    },
    /** Sends what is due within `withinMs` (25 s by default); drains called together run one after another. */
    async drain({ withinMs = 25000 } = {}) {
      await load();
      while (running) await running.catch(() => {});
      const task = run(now() + withinMs).finally(() => { running = null; });
      running = task;
      return task;
    },
  };
}

/**
 * Wires Voltra's events (`addVoltraListener` of `@use-voltra/ios-client`) to the client. Voltra
 * names activities; `activityIDFor(activityName)` gives the logical id (by default the name itself).
 * Returns a function that removes the listeners. Call it at launch, before anything else, headless
 * launches included.
 */
export function wireVoltra(addVoltraListener, client, { activityIDFor = (name) => name, attributesType = 'VoltraAttributes', drain = true } = {}) {
  const kick = () => { if (drain) client.drain().catch(() => {}); };
  const subscriptions = [
    // Each listener returns its promise (Voltra ignores it; tests await it).
    addVoltraListener('activityPushToStartTokenReceived', (e) => client.setPushToStartToken(attributesType, e.pushToStartToken).then(kick)),
    addVoltraListener('activityTokenReceived', (e) => {
      const id = activityIDFor(e.activityName);
      // The phone's own ActivityKit id, when the event carries it: taps reported under it then arrive.
      const own = [e.activityID, e.activityId, e.source].find(isActivityKitID) ?? null;
      return id ? client.setActivityToken(id, e.pushToken, attributesType, { deviceActivityID: own }).then(kick) : Promise.resolve();
    }),
    addVoltraListener('stateChange', (e) => {
      const id = activityIDFor(e.activityName);
      const over = e.activityState === 'ended' || e.activityState === 'dismissed';
      return id && over ? Promise.all([client.deleteActivityToken(id), client.leaveChannel(id)]).then(kick) : Promise.resolve();
    }),
    addVoltraListener('interaction', (e) => {
      const id = activityIDFor(e.source);
      // Voltra replays queued taps when JS subscribes: the same tap makes the same key, delivered once.
      if (!id) return Promise.resolve();
      const idempotencyKey = `${e.source}:${e.identifier}:${e.timestamp}`;
      return client.postInteraction({ activityID: id, action: e.identifier, payload: e.payload, idempotencyKey }).then(kick);
    }),
  ];
  return () => { for (const s of subscriptions) s?.remove?.(); };
}

/**
 * Voltra's `startLiveActivity` (of `@use-voltra/ios-client`), reporting a channel start: Voltra's
 * events never carry an activity's channel (a channel activity emits no `activityTokenReceived`,
 * and `stateChange` names only the activity), so the start itself is where the channel is known.
 * Use the returned function as Voltra's: with `channelId` (iOS 18) the activity is reported as
 * following it under `activityIDFor(activityName)`; `wireVoltra` withdraws it at the end.
 */
export function followVoltraChannels(startLiveActivity, client, { activityIDFor = (name) => name, drain = true } = {}) {
  return async (variants, options) => {
    const started = await startLiveActivity(variants, options);
    const id = options?.channelId ? activityIDFor(options.activityName ?? started) : null;
    if (id) {
      await client.followChannel(id, options.channelId, { deviceActivityID: isActivityKitID(started) ? started : null });
      if (drain) client.drain().catch(() => {});
    }
    return started;
  };
}

/**
 * Wires the flight-tracker guide's bridge: `onPushTokenUpdate(callback)` calls back with
 * `{activityId, pushToken}` for each new or rotated token (instead of POSTing to /register-push-token).
 */
export function wirePushTokenUpdates(onPushTokenUpdate, client, { attributesType, drain = true } = {}) {
  return onPushTokenUpdate(({ activityId, pushToken }) =>
    client.setActivityToken(activityId, pushToken, attributesType).then(() => { if (drain) client.drain().catch(() => {}); }));
}
