import LivelinePostgres
import LivelineSQLite

/// The schema, as an ordered list of named steps. A released step is never edited: a change is a new step.
/// SQLite and PostgreSQL have the same steps (names, versions, tables, columns, indexes), each in its dialect.
enum Migrations {
    static let sqlite: [SQLiteMigration] = [
        SQLiteMigration("1-registry", """
            CREATE TABLE api_keys (
                id TEXT PRIMARY KEY,
                scope TEXT NOT NULL CHECK (scope IN ('app', 'admin')),
                hash TEXT NOT NULL UNIQUE,
                name TEXT,
                created_at REAL NOT NULL);
            CREATE TABLE apps (
                bundle_id TEXT PRIMARY KEY,
                team_id TEXT NOT NULL,
                key_id TEXT NOT NULL,
                key_pem TEXT NOT NULL,
                environment TEXT NOT NULL CHECK (environment IN ('production', 'sandbox')),
                created_at REAL NOT NULL);
            CREATE TABLE devices (
                device_id TEXT PRIMARY KEY,
                bundle_id TEXT NOT NULL,
                ios_version TEXT NOT NULL,
                user_id TEXT,
                frequent_updates INTEGER NOT NULL,
                updated_at REAL NOT NULL);
            CREATE INDEX devices_by_user ON devices (user_id) WHERE user_id IS NOT NULL;
            CREATE TABLE push_to_start_tokens (
                device_id TEXT NOT NULL REFERENCES devices (device_id) ON DELETE CASCADE,
                attributes_type TEXT NOT NULL,
                token TEXT NOT NULL,
                registered_at REAL NOT NULL,
                PRIMARY KEY (device_id, attributes_type));
            CREATE TABLE activities (
                activity_id TEXT PRIMARY KEY,
                bundle_id TEXT NOT NULL,
                attributes_type TEXT NOT NULL,
                channel_id TEXT,
                started_at REAL NOT NULL,
                ended_at REAL,
                last_timestamp REAL);
            CREATE TABLE activity_tokens (
                activity_id TEXT NOT NULL,
                device_id TEXT NOT NULL,
                token TEXT NOT NULL,
                registered_at REAL NOT NULL,
                PRIMARY KEY (activity_id, device_id));
            """),
        SQLiteMigration("2-outbox", """
            CREATE TABLE sends (
                id INTEGER PRIMARY KEY,
                activity_id TEXT NOT NULL,
                event TEXT NOT NULL CHECK (event IN ('start', 'update', 'end')),
                bundle_id TEXT NOT NULL,
                body BLOB NOT NULL,
                created_at REAL NOT NULL);
            CREATE TABLE outbox (
                id INTEGER PRIMARY KEY,
                send_id INTEGER NOT NULL REFERENCES sends (id),
                activity_id TEXT NOT NULL,
                event TEXT NOT NULL,
                device_id TEXT,
                target TEXT NOT NULL CHECK (target IN ('token', 'push-to-start', 'channel')),
                token TEXT NOT NULL,
                priority INTEGER NOT NULL,
                note TEXT,
                state TEXT NOT NULL CHECK (state IN ('queued', 'sending', 'retrying', 'sent', 'failed', 'superseded', 'pruned')),
                attempts INTEGER NOT NULL DEFAULT 0,
                next_attempt_at REAL NOT NULL,
                lease_until REAL,
                apns_id TEXT,
                status INTEGER,
                reason TEXT,
                displayed_at REAL,
                created_at REAL NOT NULL,
                updated_at REAL NOT NULL);
            CREATE INDEX outbox_due ON outbox (next_attempt_at, id) WHERE state IN ('queued', 'retrying');
            CREATE INDEX outbox_sending ON outbox (lease_until) WHERE state = 'sending';
            CREATE INDEX outbox_by_activity ON outbox (activity_id, device_id, id);
            CREATE INDEX outbox_waiting_by_activity ON outbox (activity_id) WHERE state IN ('queued', 'sending', 'retrying');
            -- Only the newest content matters on a Lock Screen: at most one waiting update per activity and device.
            CREATE UNIQUE INDEX outbox_one_waiting_update ON outbox (activity_id, device_id)
                WHERE state IN ('queued', 'retrying') AND event = 'update' AND target = 'token';
            CREATE TABLE idempotency (
                key_id TEXT NOT NULL,
                idempotency_key TEXT NOT NULL,
                request_hash TEXT NOT NULL,
                status INTEGER NOT NULL,
                body BLOB NOT NULL,
                created_at REAL NOT NULL,
                PRIMARY KEY (key_id, idempotency_key));
            CREATE TABLE interactions (
                id INTEGER PRIMARY KEY,
                activity_id TEXT NOT NULL,
                device_id TEXT,
                idempotency_key TEXT NOT NULL UNIQUE,
                body BLOB NOT NULL,
                created_at REAL NOT NULL,
                webhook_state TEXT NOT NULL CHECK (webhook_state IN ('pending', 'delivered', 'failed')),
                attempts INTEGER NOT NULL DEFAULT 0,
                next_attempt_at REAL NOT NULL,
                last_error TEXT);
            CREATE INDEX interactions_by_activity ON interactions (activity_id, id);
            CREATE INDEX interactions_due ON interactions (next_attempt_at) WHERE webhook_state = 'pending';
            CREATE TABLE channels (
                channel_id TEXT PRIMARY KEY,
                bundle_id TEXT NOT NULL,
                storage_policy INTEGER NOT NULL,
                created_at REAL NOT NULL);
            CREATE INDEX channels_by_bundle ON channels (bundle_id);
            """),
        // SQLite compiles an IN list of three or more values into an ephemeral table that every
        // execution of a statement builds again, and CHECK constraints and partial-index
        // conditions are evaluated on each row written: with them, recording one verdict built
        // three such tables. The same rules as OR chains cost nothing of the kind. Queries that
        // should use `outbox_waiting_by_activity` repeat its condition word for word
        // (`SQLDialect.waitingCondition`), as SQLite matches partial indexes by their terms.
        SQLiteMigration("3-outbox-without-in-lists", """
            CREATE TABLE outbox_rebuilt (
                id INTEGER PRIMARY KEY,
                send_id INTEGER NOT NULL REFERENCES sends (id),
                activity_id TEXT NOT NULL,
                event TEXT NOT NULL,
                device_id TEXT,
                target TEXT NOT NULL CHECK (target = 'token' OR target = 'push-to-start' OR target = 'channel'),
                token TEXT NOT NULL,
                priority INTEGER NOT NULL,
                note TEXT,
                state TEXT NOT NULL CHECK (state = 'queued' OR state = 'sending' OR state = 'retrying' OR state = 'sent'
                    OR state = 'failed' OR state = 'superseded' OR state = 'pruned'),
                attempts INTEGER NOT NULL DEFAULT 0,
                next_attempt_at REAL NOT NULL,
                lease_until REAL,
                apns_id TEXT,
                status INTEGER,
                reason TEXT,
                displayed_at REAL,
                created_at REAL NOT NULL,
                updated_at REAL NOT NULL);
            INSERT INTO outbox_rebuilt SELECT id, send_id, activity_id, event, device_id, target, token, priority, note, state, attempts,
                next_attempt_at, lease_until, apns_id, status, reason, displayed_at, created_at, updated_at FROM outbox;
            DROP TABLE outbox;
            ALTER TABLE outbox_rebuilt RENAME TO outbox;
            CREATE INDEX outbox_due ON outbox (next_attempt_at, id) WHERE state IN ('queued', 'retrying');
            CREATE INDEX outbox_sending ON outbox (lease_until) WHERE state = 'sending';
            CREATE INDEX outbox_by_activity ON outbox (activity_id, device_id, id);
            CREATE INDEX outbox_waiting_by_activity ON outbox (activity_id) WHERE (state = 'queued' OR state = 'sending' OR state = 'retrying');
            CREATE UNIQUE INDEX outbox_one_waiting_update ON outbox (activity_id, device_id)
                WHERE state IN ('queued', 'retrying') AND event = 'update' AND target = 'token';
            """),
        // The trust branch: installations (the app key only creates them; their secret's hash is
        // kept), user bindings verified or not (devices made before this step keep their userID
        // unverified: audiences by userIDs skip them until a user token binds them again), the
        // apps' user-token secrets, and an index for per-installation interaction quotas.
        SQLiteMigration("4-installations", """
            CREATE TABLE installations (
                installation_id TEXT PRIMARY KEY,
                bundle_id TEXT NOT NULL,
                secret_hash TEXT NOT NULL UNIQUE,
                created_at REAL NOT NULL);
            ALTER TABLE devices ADD COLUMN user_verified INTEGER NOT NULL DEFAULT 0;
            CREATE TABLE user_token_secrets (
                bundle_id TEXT PRIMARY KEY,
                secret TEXT NOT NULL,
                previous_secret TEXT,
                updated_at REAL NOT NULL);
            CREATE INDEX interactions_by_device ON interactions (device_id, created_at);
            """),
        // Keys: tenancy and lifecycle. Bundle ids hold no comma, so an admin key's apps are one list.
        SQLiteMigration("5-key-lifecycle", """
            ALTER TABLE api_keys ADD COLUMN bundle_id TEXT;
            ALTER TABLE api_keys ADD COLUMN apps TEXT;
            ALTER TABLE api_keys ADD COLUMN expires_at REAL;
            ALTER TABLE api_keys ADD COLUMN revoked_at REAL;
            """),
        // Token hygiene: each token's APNs environment (NULL: the app's default), a token APNs' host
        // refused with BadDeviceToken kept but marked (when and why), the apps' enabled environments
        // (NULL: only `environment`), and each outbox row's environment (the host it goes to).
        SQLiteMigration("6-token-environment", """
            ALTER TABLE apps ADD COLUMN environments TEXT;
            ALTER TABLE push_to_start_tokens ADD COLUMN environment TEXT CHECK (environment IN ('production', 'sandbox'));
            ALTER TABLE push_to_start_tokens ADD COLUMN refused_at REAL;
            ALTER TABLE push_to_start_tokens ADD COLUMN refusal TEXT;
            ALTER TABLE activity_tokens ADD COLUMN environment TEXT CHECK (environment IN ('production', 'sandbox'));
            ALTER TABLE activity_tokens ADD COLUMN refused_at REAL;
            ALTER TABLE activity_tokens ADD COLUMN refusal TEXT;
            ALTER TABLE outbox ADD COLUMN environment TEXT;
            """),
        // What devices report about an activity beyond receipts (a content state its type failed
        // to decode), for the per-device status of `GET /v1/activities/{id}`.
        SQLiteMigration("7-activity-status", """
            CREATE TABLE device_reports (
                id INTEGER PRIMARY KEY,
                activity_id TEXT NOT NULL,
                device_id TEXT NOT NULL,
                kind TEXT NOT NULL,
                detail TEXT NOT NULL,
                reported_at REAL NOT NULL,
                created_at REAL NOT NULL);
            CREATE INDEX device_reports_by_activity ON device_reports (activity_id, device_id, id);
            """),
        // Budgets as a ledger: what a broadcast spent or lowered on the devices of each activity that
        // follows its channel (one row per activity, device_id NULL: every device holding it), and
        // which token updates were lowered (device_id set); indexes for a device's ledger.
        SQLiteMigration("8-budget-ledger", """
            CREATE TABLE budget_charges (
                id INTEGER PRIMARY KEY,
                send_id INTEGER NOT NULL REFERENCES sends (id),
                activity_id TEXT NOT NULL,
                device_id TEXT,
                kind TEXT NOT NULL CHECK (kind = 'immediate' OR kind = 'lowered'),
                via TEXT NOT NULL CHECK (via = 'token' OR via = 'channel'),
                note TEXT,
                created_at REAL NOT NULL);
            CREATE INDEX budget_charges_by_device ON budget_charges (device_id, created_at);
            CREATE INDEX budget_charges_by_activity ON budget_charges (activity_id, device_id, created_at);
            CREATE INDEX outbox_by_device ON outbox (device_id, created_at) WHERE device_id IS NOT NULL;
            CREATE INDEX activities_by_channel ON activities (channel_id) WHERE channel_id IS NOT NULL;
            """),
        // Webhook delivery under a lease, like the outbox: an instance claims an interaction
        // (claimed_by, lease_until) before calling the webhook; `attempts` and `next_attempt_at`
        // (the backoff) are 2-outbox's columns, now counted at the claim.
        SQLiteMigration("9-webhook-lease", """
            ALTER TABLE interactions ADD COLUMN claimed_by TEXT;
            ALTER TABLE interactions ADD COLUMN lease_until REAL;
            """),
        // App builds still installed: what each device reported of its app, the schema version it
        // decodes per attributes type, and the versions of each type's schema the service checks pushes against.
        SQLiteMigration("10-app-builds", """
            CREATE TABLE device_builds (
                device_id TEXT PRIMARY KEY REFERENCES devices (device_id) ON DELETE CASCADE,
                app_build TEXT,
                app_version TEXT,
                updated_at REAL NOT NULL);
            CREATE TABLE device_schema_versions (
                device_id TEXT NOT NULL REFERENCES devices (device_id) ON DELETE CASCADE,
                attributes_type TEXT NOT NULL,
                version TEXT NOT NULL,
                PRIMARY KEY (device_id, attributes_type));
            CREATE INDEX device_schema_versions_by_version ON device_schema_versions (attributes_type, version);
            CREATE TABLE schema_versions (
                attributes_type TEXT NOT NULL,
                version TEXT NOT NULL,
                schema_json TEXT NOT NULL,
                created_at REAL NOT NULL,
                retired_at REAL,
                PRIMARY KEY (attributes_type, version));
            """),
        // Other names of an activity, per app: a Voltra `name` given at start (device_id NULL) or an
        // installation's own ActivityKit activity id (device_id is that installation).
        SQLiteMigration("12-activity-aliases", """
            CREATE TABLE activity_aliases (
                bundle_id TEXT NOT NULL,
                alias TEXT NOT NULL,
                activity_id TEXT NOT NULL,
                device_id TEXT,
                created_at REAL NOT NULL,
                PRIMARY KEY (bundle_id, alias));
            """),
        // On-demand channels: the logical activity a channel was created for (nil: made with POST /v1/channels).
        SQLiteMigration("13-activity-channels", """
            ALTER TABLE channels ADD COLUMN activity_id TEXT;
            CREATE UNIQUE INDEX channels_by_activity ON channels (activity_id) WHERE activity_id IS NOT NULL;
            """),
        // Renewal past 8 hours: an activity's opt-in and running generation, and each device's successor.
        SQLiteMigration("14-activity-renewal", """
            CREATE TABLE activity_renewals (
                activity_id TEXT PRIMARY KEY,
                enabled INTEGER NOT NULL,
                generation INTEGER NOT NULL,
                updated_at REAL NOT NULL);
            CREATE TABLE device_renewals (
                activity_id TEXT NOT NULL,
                device_id TEXT NOT NULL,
                generation INTEGER NOT NULL,
                state TEXT NOT NULL CHECK (state IN ('waiting', 'pending', 'confirmed', 'unconfirmed', 'skipped')),
                requested_at REAL NOT NULL,
                send_id INTEGER,
                predecessor_token TEXT,
                predecessor_environment TEXT,
                predecessor_started_at REAL NOT NULL,
                confirmed_at REAL,
                confirmed_by TEXT,
                end_send_id INTEGER,
                reason_code TEXT,
                reason TEXT,
                updated_at REAL NOT NULL,
                PRIMARY KEY (activity_id, device_id, generation));
            CREATE INDEX device_renewals_open ON device_renewals (state) WHERE state IN ('waiting', 'pending');
            """),
        // Channel members: an installation's app-started activity follows the channel the backend
        // bound to a logical activity (no update token exists for it). One row per activity and device.
        SQLiteMigration("16-channel-members", """
            CREATE TABLE channel_members (
                activity_id TEXT NOT NULL,
                device_id TEXT NOT NULL,
                channel_id TEXT NOT NULL,
                bundle_id TEXT NOT NULL,
                device_activity_id TEXT,
                joined_at REAL NOT NULL,
                PRIMARY KEY (activity_id, device_id));
            CREATE INDEX channel_members_by_channel ON channel_members (channel_id, activity_id);
            """),
    ]

    /// The same steps in PostgreSQL's dialect: times stay seconds since 1970 (`DOUBLE PRECISION`, exact
    /// like SQLite's REAL), integers are `BIGINT`, blobs `BYTEA`, row ids identity columns.
    static let postgres: [PostgresMigration] = [
        PostgresMigration("1-registry", """
            CREATE TABLE api_keys (
                id TEXT PRIMARY KEY,
                scope TEXT NOT NULL CHECK (scope IN ('app', 'admin')),
                hash TEXT NOT NULL UNIQUE,
                name TEXT,
                created_at DOUBLE PRECISION NOT NULL);
            CREATE TABLE apps (
                bundle_id TEXT PRIMARY KEY,
                team_id TEXT NOT NULL,
                key_id TEXT NOT NULL,
                key_pem TEXT NOT NULL,
                environment TEXT NOT NULL CHECK (environment IN ('production', 'sandbox')),
                created_at DOUBLE PRECISION NOT NULL);
            CREATE TABLE devices (
                device_id TEXT PRIMARY KEY,
                bundle_id TEXT NOT NULL,
                ios_version TEXT NOT NULL,
                user_id TEXT,
                frequent_updates BIGINT NOT NULL,
                updated_at DOUBLE PRECISION NOT NULL);
            CREATE INDEX devices_by_user ON devices (user_id) WHERE user_id IS NOT NULL;
            CREATE TABLE push_to_start_tokens (
                device_id TEXT NOT NULL REFERENCES devices (device_id) ON DELETE CASCADE,
                attributes_type TEXT NOT NULL,
                token TEXT NOT NULL,
                registered_at DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (device_id, attributes_type));
            CREATE TABLE activities (
                activity_id TEXT PRIMARY KEY,
                bundle_id TEXT NOT NULL,
                attributes_type TEXT NOT NULL,
                channel_id TEXT,
                started_at DOUBLE PRECISION NOT NULL,
                ended_at DOUBLE PRECISION,
                last_timestamp DOUBLE PRECISION);
            CREATE TABLE activity_tokens (
                activity_id TEXT NOT NULL,
                device_id TEXT NOT NULL,
                token TEXT NOT NULL,
                registered_at DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (activity_id, device_id));
            """),
        PostgresMigration("2-outbox", """
            CREATE TABLE sends (
                id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                activity_id TEXT NOT NULL,
                event TEXT NOT NULL CHECK (event IN ('start', 'update', 'end')),
                bundle_id TEXT NOT NULL,
                body BYTEA NOT NULL,
                created_at DOUBLE PRECISION NOT NULL);
            CREATE TABLE outbox (
                id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                send_id BIGINT NOT NULL REFERENCES sends (id),
                activity_id TEXT NOT NULL,
                event TEXT NOT NULL,
                device_id TEXT,
                target TEXT NOT NULL CHECK (target IN ('token', 'push-to-start', 'channel')),
                token TEXT NOT NULL,
                priority BIGINT NOT NULL,
                note TEXT,
                state TEXT NOT NULL CHECK (state IN ('queued', 'sending', 'retrying', 'sent', 'failed', 'superseded', 'pruned')),
                attempts BIGINT NOT NULL DEFAULT 0,
                next_attempt_at DOUBLE PRECISION NOT NULL,
                lease_until DOUBLE PRECISION,
                apns_id TEXT,
                status BIGINT,
                reason TEXT,
                displayed_at DOUBLE PRECISION,
                created_at DOUBLE PRECISION NOT NULL,
                updated_at DOUBLE PRECISION NOT NULL);
            CREATE INDEX outbox_due ON outbox (next_attempt_at, id) WHERE state IN ('queued', 'retrying');
            CREATE INDEX outbox_sending ON outbox (lease_until) WHERE state = 'sending';
            CREATE INDEX outbox_by_activity ON outbox (activity_id, device_id, id);
            CREATE INDEX outbox_waiting_by_activity ON outbox (activity_id) WHERE state IN ('queued', 'sending', 'retrying');
            -- Only the newest content matters on a Lock Screen: at most one waiting update per activity and device.
            CREATE UNIQUE INDEX outbox_one_waiting_update ON outbox (activity_id, device_id)
                WHERE state IN ('queued', 'retrying') AND event = 'update' AND target = 'token';
            CREATE TABLE idempotency (
                key_id TEXT NOT NULL,
                idempotency_key TEXT NOT NULL,
                request_hash TEXT NOT NULL,
                status BIGINT NOT NULL,
                body BYTEA NOT NULL,
                created_at DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (key_id, idempotency_key));
            CREATE TABLE interactions (
                id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                activity_id TEXT NOT NULL,
                device_id TEXT,
                idempotency_key TEXT NOT NULL UNIQUE,
                body BYTEA NOT NULL,
                created_at DOUBLE PRECISION NOT NULL,
                webhook_state TEXT NOT NULL CHECK (webhook_state IN ('pending', 'delivered', 'failed')),
                attempts BIGINT NOT NULL DEFAULT 0,
                next_attempt_at DOUBLE PRECISION NOT NULL,
                last_error TEXT);
            CREATE INDEX interactions_by_activity ON interactions (activity_id, id);
            CREATE INDEX interactions_due ON interactions (next_attempt_at) WHERE webhook_state = 'pending';
            CREATE TABLE channels (
                channel_id TEXT PRIMARY KEY,
                bundle_id TEXT NOT NULL,
                storage_policy BIGINT NOT NULL,
                created_at DOUBLE PRECISION NOT NULL);
            CREATE INDEX channels_by_bundle ON channels (bundle_id);
            """),
        // SQLite's migration 3 rebuilt the outbox so that its checks need no IN lists (they cost a
        // temporary table per row written there); PostgreSQL evaluates them in place, so here the
        // step only keeps the two lists of versions alike.
        PostgresMigration("3-outbox-without-in-lists", """
            COMMENT ON TABLE outbox IS 'One row per push: queued, sending (leased), retrying, then sent, failed, superseded or pruned.';
            """),
        PostgresMigration("4-installations", """
            CREATE TABLE installations (
                installation_id TEXT PRIMARY KEY,
                bundle_id TEXT NOT NULL,
                secret_hash TEXT NOT NULL UNIQUE,
                created_at DOUBLE PRECISION NOT NULL);
            ALTER TABLE devices ADD COLUMN user_verified BIGINT NOT NULL DEFAULT 0;
            CREATE TABLE user_token_secrets (
                bundle_id TEXT PRIMARY KEY,
                secret TEXT NOT NULL,
                previous_secret TEXT,
                updated_at DOUBLE PRECISION NOT NULL);
            CREATE INDEX interactions_by_device ON interactions (device_id, created_at);
            """),
        PostgresMigration("5-key-lifecycle", """
            ALTER TABLE api_keys ADD COLUMN bundle_id TEXT;
            ALTER TABLE api_keys ADD COLUMN apps TEXT;
            ALTER TABLE api_keys ADD COLUMN expires_at DOUBLE PRECISION;
            ALTER TABLE api_keys ADD COLUMN revoked_at DOUBLE PRECISION;
            """),
        PostgresMigration("6-token-environment", """
            ALTER TABLE apps ADD COLUMN environments TEXT;
            ALTER TABLE push_to_start_tokens ADD COLUMN environment TEXT CHECK (environment IN ('production', 'sandbox'));
            ALTER TABLE push_to_start_tokens ADD COLUMN refused_at DOUBLE PRECISION;
            ALTER TABLE push_to_start_tokens ADD COLUMN refusal TEXT;
            ALTER TABLE activity_tokens ADD COLUMN environment TEXT CHECK (environment IN ('production', 'sandbox'));
            ALTER TABLE activity_tokens ADD COLUMN refused_at DOUBLE PRECISION;
            ALTER TABLE activity_tokens ADD COLUMN refusal TEXT;
            ALTER TABLE outbox ADD COLUMN environment TEXT;
            """),
        PostgresMigration("7-activity-status", """
            CREATE TABLE device_reports (
                id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                activity_id TEXT NOT NULL,
                device_id TEXT NOT NULL,
                kind TEXT NOT NULL,
                detail TEXT NOT NULL,
                reported_at DOUBLE PRECISION NOT NULL,
                created_at DOUBLE PRECISION NOT NULL);
            CREATE INDEX device_reports_by_activity ON device_reports (activity_id, device_id, id);
            """),
        PostgresMigration("8-budget-ledger", """
            CREATE TABLE budget_charges (
                id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                send_id BIGINT NOT NULL REFERENCES sends (id),
                activity_id TEXT NOT NULL,
                device_id TEXT,
                kind TEXT NOT NULL CHECK (kind IN ('immediate', 'lowered')),
                via TEXT NOT NULL CHECK (via IN ('token', 'channel')),
                note TEXT,
                created_at DOUBLE PRECISION NOT NULL);
            CREATE INDEX budget_charges_by_device ON budget_charges (device_id, created_at);
            CREATE INDEX budget_charges_by_activity ON budget_charges (activity_id, device_id, created_at);
            CREATE INDEX outbox_by_device ON outbox (device_id, created_at) WHERE device_id IS NOT NULL;
            CREATE INDEX activities_by_channel ON activities (channel_id) WHERE channel_id IS NOT NULL;
            """),
        PostgresMigration("9-webhook-lease", """
            ALTER TABLE interactions ADD COLUMN claimed_by TEXT;
            ALTER TABLE interactions ADD COLUMN lease_until DOUBLE PRECISION;
            """),
        // App builds still installed: what each device reported of its app, the schema version it
        // decodes per attributes type, and the versions of each type's schema the service checks pushes against.
        PostgresMigration("10-app-builds", """
            CREATE TABLE device_builds (
                device_id TEXT PRIMARY KEY REFERENCES devices (device_id) ON DELETE CASCADE,
                app_build TEXT,
                app_version TEXT,
                updated_at DOUBLE PRECISION NOT NULL);
            CREATE TABLE device_schema_versions (
                device_id TEXT NOT NULL REFERENCES devices (device_id) ON DELETE CASCADE,
                attributes_type TEXT NOT NULL,
                version TEXT NOT NULL,
                PRIMARY KEY (device_id, attributes_type));
            CREATE INDEX device_schema_versions_by_version ON device_schema_versions (attributes_type, version);
            CREATE TABLE schema_versions (
                attributes_type TEXT NOT NULL,
                version TEXT NOT NULL,
                schema_json TEXT NOT NULL,
                created_at DOUBLE PRECISION NOT NULL,
                retired_at DOUBLE PRECISION,
                PRIMARY KEY (attributes_type, version));
            """),
        PostgresMigration("12-activity-aliases", """
            CREATE TABLE activity_aliases (
                bundle_id TEXT NOT NULL,
                alias TEXT NOT NULL,
                activity_id TEXT NOT NULL,
                device_id TEXT,
                created_at DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (bundle_id, alias));
            """),
        // On-demand channels: the logical activity a channel was created for (nil: made with POST /v1/channels).
        PostgresMigration("13-activity-channels", """
            ALTER TABLE channels ADD COLUMN activity_id TEXT;
            CREATE UNIQUE INDEX channels_by_activity ON channels (activity_id) WHERE activity_id IS NOT NULL;
            """),
        PostgresMigration("14-activity-renewal", """
            CREATE TABLE activity_renewals (
                activity_id TEXT PRIMARY KEY,
                enabled BIGINT NOT NULL,
                generation BIGINT NOT NULL,
                updated_at DOUBLE PRECISION NOT NULL);
            CREATE TABLE device_renewals (
                activity_id TEXT NOT NULL,
                device_id TEXT NOT NULL,
                generation BIGINT NOT NULL,
                state TEXT NOT NULL CHECK (state IN ('waiting', 'pending', 'confirmed', 'unconfirmed', 'skipped')),
                requested_at DOUBLE PRECISION NOT NULL,
                send_id BIGINT,
                predecessor_token TEXT,
                predecessor_environment TEXT,
                predecessor_started_at DOUBLE PRECISION NOT NULL,
                confirmed_at DOUBLE PRECISION,
                confirmed_by TEXT,
                end_send_id BIGINT,
                reason_code TEXT,
                reason TEXT,
                updated_at DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (activity_id, device_id, generation));
            CREATE INDEX device_renewals_open ON device_renewals (state) WHERE state IN ('waiting', 'pending');
            """),
        PostgresMigration("16-channel-members", """
            CREATE TABLE channel_members (
                activity_id TEXT NOT NULL,
                device_id TEXT NOT NULL,
                channel_id TEXT NOT NULL,
                bundle_id TEXT NOT NULL,
                device_activity_id TEXT,
                joined_at DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (activity_id, device_id));
            CREATE INDEX channel_members_by_channel ON channel_members (channel_id, activity_id);
            """),
    ]
}
