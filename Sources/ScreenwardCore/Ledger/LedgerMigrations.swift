import GRDB

/// The ledger's schema history. Migrations that have shipped are never edited:
/// a change to the schema is a new migration appended here.
enum LedgerMigrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()

        migrator.registerMigration("v1: applications, agent sessions, usage intervals, status") { db in
            // Times are Unix seconds (wall clock); durations are monotonic seconds.
            try db.execute(sql: """
                CREATE TABLE application (
                  token TEXT PRIMARY KEY NOT NULL,
                  publicID TEXT NOT NULL,
                  displayName TEXT NOT NULL,
                  iconName TEXT,
                  categories TEXT NOT NULL DEFAULT '',
                  firstSeen DOUBLE NOT NULL,
                  lastSeen DOUBLE NOT NULL
                );
                CREATE TABLE agentSession (
                  id INTEGER PRIMARY KEY AUTOINCREMENT,
                  pid INTEGER NOT NULL,
                  display TEXT NOT NULL,
                  startedAt DOUBLE NOT NULL,
                  endedAt DOUBLE,
                  endReason TEXT
                );
                CREATE TABLE usageInterval (
                  id INTEGER PRIMARY KEY AUTOINCREMENT,
                  token TEXT NOT NULL REFERENCES application(token),
                  sessionID INTEGER NOT NULL REFERENCES agentSession(id),
                  startedAt DOUBLE NOT NULL,
                  -- always startedAt + duration, so a clock jump inside an interval cannot stretch it
                  endedAt DOUBLE NOT NULL,
                  duration DOUBLE NOT NULL CHECK (duration >= 0),
                  isOpen BOOLEAN NOT NULL,
                  endReason TEXT
                );
                CREATE INDEX usageInterval_byStart ON usageInterval(startedAt);
                CREATE INDEX usageInterval_open ON usageInterval(isOpen) WHERE isOpen;
                CREATE TABLE agentStatus (
                  id INTEGER PRIMARY KEY CHECK (id = 1),
                  sessionID INTEGER NOT NULL REFERENCES agentSession(id),
                  pid INTEGER NOT NULL,
                  display TEXT NOT NULL,
                  focusedID TEXT,
                  focusedName TEXT,
                  isIdle BOOLEAN NOT NULL,
                  isLocked BOOLEAN NOT NULL,
                  idleThreshold DOUBLE NOT NULL,
                  updatedAt DOUBLE NOT NULL
                );
                """)
        }

        migrator.registerMigration("v2: monitored activities, their intervals, the callbacks fired") { db in
            // Times are Unix seconds (wall clock). A registration's intervals and
            // firings go with it: a replaced or stopped activity starts afresh.
            try db.execute(sql: """
                CREATE TABLE monitorRegistration (
                  id INTEGER PRIMARY KEY AUTOINCREMENT,
                  owner TEXT NOT NULL,
                  activity TEXT NOT NULL,
                  schedule TEXT NOT NULL, -- DeviceActivitySchedule as JSON
                  events TEXT NOT NULL, -- [{name, event}] as JSON, sorted by name
                  registeredAt DOUBLE NOT NULL,
                  UNIQUE (owner, activity)
                );
                -- Intervals the engine has taken up, with the instants they had then.
                CREATE TABLE monitorInterval (
                  registrationID INTEGER NOT NULL REFERENCES monitorRegistration(id) ON DELETE CASCADE,
                  start DOUBLE NOT NULL,
                  "end" DOUBLE NOT NULL CHECK ("end" > start),
                  isFinished BOOLEAN NOT NULL DEFAULT 0,
                  PRIMARY KEY (registrationID, start)
                );
                -- Each callback fires once per interval: the primary key says so.
                CREATE TABLE monitorFiring (
                  registrationID INTEGER NOT NULL,
                  intervalStart DOUBLE NOT NULL,
                  kind TEXT NOT NULL,
                  event TEXT NOT NULL DEFAULT '', -- '' for interval callbacks
                  scheduledAt DOUBLE NOT NULL,
                  firedAt DOUBLE NOT NULL,
                  PRIMARY KEY (registrationID, intervalStart, kind, event),
                  FOREIGN KEY (registrationID, intervalStart)
                    REFERENCES monitorInterval(registrationID, start) ON DELETE CASCADE
                );
                """)
        }
        migrator.registerMigration("v3: client authorizations, tokens issued to them, settings stores, monitor outbox") { db in
            try db.execute(sql: """
                -- An app (by its declared bundle identifier) allowed to use the API. Tokens
                -- it holds derive from its grant key, so a new grant voids the old tokens.
                CREATE TABLE clientAuthorization (
                  client TEXT PRIMARY KEY NOT NULL,
                  member TEXT NOT NULL,
                  grantKey TEXT NOT NULL,
                  grantedAt DOUBLE NOT NULL
                );
                -- Every token handed to a client, with the device-wide token it stands for
                -- and what it names (an application id, a category id, a domain).
                CREATE TABLE issuedToken (
                  client TEXT NOT NULL REFERENCES clientAuthorization(client) ON DELETE CASCADE,
                  kind TEXT NOT NULL CHECK (kind IN ('application', 'category', 'webDomain')),
                  token TEXT NOT NULL,
                  deviceToken TEXT NOT NULL,
                  label TEXT NOT NULL,
                  PRIMARY KEY (client, kind, token)
                );
                -- A client's named settings store, with device-wide tokens (StoreContents JSON).
                CREATE TABLE managedStore (
                  client TEXT NOT NULL REFERENCES clientAuthorization(client) ON DELETE CASCADE,
                  name TEXT NOT NULL,
                  contents TEXT NOT NULL,
                  updatedAt DOUBLE NOT NULL,
                  PRIMARY KEY (client, name)
                );
                -- Monitor callbacks not yet acknowledged by the client's monitor.
                CREATE TABLE monitorOutbox (
                  sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                  client TEXT NOT NULL,
                  message TEXT NOT NULL,
                  createdAt DOUBLE NOT NULL
                );
                CREATE INDEX monitorOutbox_byClient ON monitorOutbox(client, sequence);
                """)
        }
        migrator.registerMigration("v4: extension runs, monitor callbacks' delivery attempts") { db in
            try db.execute(
                sql: """
                    -- How often a callback went to a monitor extension that then failed
                    -- (crashed, hung, was killed) before acknowledging it.
                    ALTER TABLE monitorOutbox ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
                    -- Each extension process the owner started, and how it ended; and each
                    -- callback given up on (outcome 'callback-failed').
                    CREATE TABLE extensionRun (
                      id INTEGER PRIMARY KEY AUTOINCREMENT,
                      client TEXT NOT NULL,
                      point TEXT NOT NULL,
                      pid INTEGER,
                      startedAt DOUBLE NOT NULL,
                      endedAt DOUBLE,
                      outcome TEXT,
                      detail TEXT NOT NULL DEFAULT ''
                    );
                    CREATE INDEX extensionRun_byClient ON extensionRun(client, id);
                    """)
        }
        migrator.registerMigration("v5: what each app shares with its extensions") { db in
            try db.execute(
                sql: """
                    -- AppGroupStorage: an app's values, per key, read and written by the
                    -- app and its extensions through the owner.
                    CREATE TABLE appGroupValue (
                      client TEXT NOT NULL,
                      key TEXT NOT NULL,
                      value BLOB NOT NULL,
                      updatedAt DOUBLE NOT NULL,
                      PRIMARY KEY (client, key)
                    );
                    """)
        }
        return migrator
    }
}
