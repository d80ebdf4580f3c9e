// Types for @liveline/react-native (index.js). Plain JavaScript, no build step.

/** Where the queue is kept: AsyncStorage, or anything with the same two methods. */
export interface KeyValueStorage {
  getItem(key: string): Promise<string | null>;
  setItem(key: string, value: string): Promise<void>;
}

export interface LivelineClientOptions {
  /** The service, e.g. `https://live.example.com`. */
  baseURL: string;
  /** An app key (`POST /v1/keys` with scope `app`): it only creates this install's installation
   *  (`POST /v1/installations`); every device call then uses the installation's credential. Never logged. */
  appKey: string;
  /** Where the installation secret is kept: the platform's secure storage (e.g. react-native-keychain
   *  behind getItem/setItem/removeItem). Without it, `storage` is used and a warning is logged. */
  secureStorage?: KeyValueStorage & { removeItem?(key: string): Promise<void> };
  /** Asks the app's backend for a user token binding `userID` to this installation (an HS256 JWT it signs). */
  userTokenProvider?: (installationID: string, userID: string) => Promise<string | null>;
  /** Asks the app's backend for a grant to register an update token for an activity the service did not start on this installation. */
  activityGrantProvider?: (installationID: string, activityID: string) => Promise<string | null>;
  /** This install's stable id. */
  deviceID: string;
  /** The queue's storage (in memory when omitted: not for production). */
  storage?: KeyValueStorage;
  fetch?: typeof globalThis.fetch;
  /** Milliseconds since 1970. */
  now?: () => number;
  /** A number in [0, 1) for jitter. */
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Lines with ids and token prefixes only. */
  log?: (line: string) => void;
  /** The build's `aps-environment` (`development` is APNs' sandbox), sent with every token as
   *  `environment`; read it with the native module's `getApsEnvironment()`. Omitted or null: the
   *  service uses the app's default environment. Any other value throws a TypeError. */
  apsEnvironment?: 'sandbox' | 'development' | 'production' | null;
}

export interface DeviceRegistration {
  bundleID: string;
  iosVersion: string;
  userID?: string | null;
  frequentUpdates?: boolean;
  /** The backend's user token for `userID` (else `userTokenProvider` is asked); without one the userID stays unverified. */
  userToken?: string | null;
  /** CFBundleVersion (e.g. react-native-device-info's getBuildNumber()): 1 to 64 letters, digits, '.', '-', '_'. */
  appBuild?: string | null;
  /** CFBundleShortVersionString (getVersion()). */
  appVersion?: string | null;
  /** Per attributes type, the version of its schema this build's ContentState decodes (registered with PUT /v1/schemas/{type}/versions/{version}). */
  schemaVersions?: Record<string, string> | null;
}

export interface Interaction {
  activityID: string;
  action: string;
  payload?: unknown;
  /** Made once when the tap happens; the service delivers it once. */
  idempotencyKey: string;
}

export type UploadOperation =
  | { kind: 'device'; device: DeviceRegistration & { deviceID: string } }
  | { kind: 'pushToStart'; token: string; attributesType: string; deviceID: string }
  | { kind: 'activityToken'; token: string; activityID: string; deviceID: string; attributesType: string | null; deviceActivityID?: string }
  | { kind: 'deleteActivityToken'; activityID: string; deviceID: string }
  | { kind: 'interaction'; interaction: Interaction }
  | { kind: 'decodeFailure'; activityID: string; deviceID: string; error: string; failedAt: number }
  /** `token` is the channel id. */
  | { kind: 'channelMember'; token: string; activityID: string; deviceID: string; deviceActivityID?: string }
  | { kind: 'deleteChannelMember'; activityID: string; deviceID: string };

export interface DrainReport {
  /** Summaries (ids and token prefixes) of what the service accepted. */
  sent: string[];
  /** Refused for good (a 4xx retrying cannot fix), with the error. */
  dropped: string[];
  remaining: number;
  /** When to try again (ms since 1970), or null. */
  nextAttempt: number | null;
}

export interface LivelineClient {
  readonly deviceID: string;
  /** The installation id the service issued (the device id the backend addresses), or null before the first registration. */
  installationID(): Promise<string | null>;
  /** Reads the stored queue (done by every other call too). */
  load(): Promise<void>;
  /** Points later requests at another address or key; the queue is kept. */
  configure(changes: { baseURL?: string; appKey?: string }): void;
  registerDevice(device: DeviceRegistration): Promise<void>;
  setPushToStartToken(attributesType: string, token: string | null | undefined): Promise<void>;
  /** `deviceActivityID`: the phone's own ActivityKit `Activity.id` (a UUID), made an alias of `activityID` for this installation. */
  setActivityToken(activityID: string, token: string | null | undefined, attributesType?: string, options?: { deviceActivityID?: string | null }): Promise<void>;
  deleteActivityToken(activityID: string): Promise<void>;
  reconcile(runningActivityIDs: Iterable<string>): Promise<void>;
  postInteraction(interaction: Interaction): Promise<void>;
  /** The app's attributes type could not decode a content state of the activity (the decoder's message, at most 1000 characters). */
  postDecodeFailure(activityID: string, error: string): Promise<void>;
  /** An activity the app started itself on a channel (iOS 18) follows the channel the backend bound to `activityID`. */
  followChannel(activityID: string, channelID: string, options?: { deviceActivityID?: string | null }): Promise<void>;
  /** The app-started channel activity ended or was dismissed. */
  leaveChannel(activityID: string): Promise<void>;
  pending(): Promise<UploadOperation[]>;
  drain(options?: { withinMs?: number }): Promise<DrainReport>;
}

export class LivelineError extends Error {
  readonly request: string;
  /** null when the service did not answer. */
  readonly status: number | null;
  readonly code: string | null;
  /** The service's Retry-After, in ms, when it sent one. */
  readonly retryAfterMs?: number;
  readonly retryable: boolean;
  readonly unknownDevice: boolean;
}

export function createLivelineClient(options: LivelineClientOptions): LivelineClient;
export function memoryStorage(): KeyValueStorage;
export function backoffDelay(attempts: number, random: number, baseMs?: number, maxMs?: number): number;
/** The `apsEnvironment` option as the service names it: 'sandbox', 'production' or null; throws a TypeError otherwise. */
export function tokenEnvironment(value: string | null | undefined): 'sandbox' | 'production' | null;
/** A push-to-start token the service holds is reported again after this many milliseconds. */
export const PUSH_TO_START_REPORT_INTERVAL_MS: number;
/** How long a tap or decode failure answered 404 is kept and retried (its id may resolve once the phone's activity id is reported), then dropped. */
export const UNRESOLVED_ACTIVITY_RETRY_MS: number;

type Subscription = { remove(): void } | undefined;
export function wireVoltra(
  addVoltraListener: (event: string, callback: (event: any) => unknown) => Subscription,
  client: LivelineClient,
  options?: { activityIDFor?: (activityName: string) => string | null | undefined; attributesType?: string; drain?: boolean },
): () => void;

/** Voltra's `startLiveActivity`, reporting a start with `channelId` (Voltra's events never carry the channel). */
export function followVoltraChannels<V, O extends { activityName?: string; channelId?: string }>(
  startLiveActivity: (variants: V, options?: O) => Promise<string>,
  client: LivelineClient,
  options?: { activityIDFor?: (activityName: string) => string | null | undefined; drain?: boolean },
): (variants: V, options?: O) => Promise<string>;

export function wirePushTokenUpdates<S>(
  onPushTokenUpdate: (callback: (update: { activityId: string; pushToken: string }) => unknown) => S,
  client: LivelineClient,
  options?: { attributesType?: string; drain?: boolean },
): S;
