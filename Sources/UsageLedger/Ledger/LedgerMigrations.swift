import GRDB

/// The ledger's schema history. Migrations that have shipped are never edited:
/// a change to the schema is a new migration appended here.
enum LedgerMigrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()

        migrator.registerMigration("v1: applications, agent sessions, usage intervals, status") { db in
            // Times are Unix seconds (wall clock); durations are monotonic seconds.
            try db.execute(
                sql: """
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
            try db.execute(
                sql: """
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
        migrator.registerMigration("v3: client authorizations, tokens issued to them, settings stores, monitor outbox")
        { db in
            try db.execute(
                sql: """
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
        migrator.registerMigration("v6: rules, extra time and requests for it") { db in
            try db.execute(
                sql: """
                    -- Our own rules (the built-in app org.screenward.rules): a rule's
                    -- definition is a Rule as JSON; names are unique whatever their case.
                    CREATE TABLE rule (
                      name TEXT PRIMARY KEY NOT NULL COLLATE NOCASE,
                      definition BLOB NOT NULL,
                      createdAt DOUBLE NOT NULL,
                      createdBy TEXT NOT NULL
                    );
                    -- A relaxation of a locked rule waiting for its time: the new
                    -- definition, or NULL for the rule's removal.
                    CREATE TABLE pendingRuleChange (
                      name TEXT PRIMARY KEY NOT NULL COLLATE NOCASE,
                      definition BLOB,
                      askedAt DOUBLE NOT NULL,
                      effectiveAt DOUBLE NOT NULL
                    );
                    -- Applications our rules never shield (public ids); an allowance asked
                    -- for while a locked rule holds takes effect at effectiveAt.
                    CREATE TABLE allowedApplication (
                      id TEXT PRIMARY KEY NOT NULL,
                      addedAt DOUBLE NOT NULL,
                      effectiveAt DOUBLE NOT NULL
                    );
                    -- Extra time on a rule for the interval it was given in: a guardian's
                    -- approval or a person's own "15 more minutes". seconds NULL: until
                    -- the interval ends. A downtime's extra time is for one application.
                    CREATE TABLE ruleGrant (
                      id INTEGER PRIMARY KEY AUTOINCREMENT,
                      rule TEXT NOT NULL COLLATE NOCASE,
                      application TEXT,
                      seconds DOUBLE,
                      grantedAt DOUBLE NOT NULL,
                      grantedBy TEXT NOT NULL,
                      intervalStart DOUBLE NOT NULL,
                      intervalEnd DOUBLE NOT NULL,
                      requestID INTEGER
                    );
                    CREATE INDEX ruleGrant_byRule ON ruleGrant(rule, intervalEnd);
                    -- "Ask for more time": who asked for what, and the answer.
                    CREATE TABLE timeRequest (
                      id INTEGER PRIMARY KEY AUTOINCREMENT,
                      rule TEXT NOT NULL COLLATE NOCASE,
                      application TEXT NOT NULL,
                      applicationName TEXT NOT NULL,
                      askedAt DOUBLE NOT NULL,
                      state TEXT NOT NULL CHECK (state IN ('pending', 'approved', 'denied', 'expired')),
                      answeredAt DOUBLE,
                      answeredBy TEXT,
                      grantedSeconds DOUBLE
                    );
                    """)
        }
        migrator.registerMigration("v7: reports find a range's intervals by start, bounded by the longest") { db in
            // A report reads the intervals that start in its range widened by the longest
            // interval there is: MAX(duration) through this index is one lookup, so a
            // day of a year-long ledger reads a day of rows.
            try db.execute(sql: "CREATE INDEX usageInterval_byDuration ON usageInterval(duration)")
        }
        migrator.registerMigration("v8: the website an interval of a browser's use was on") { db in
            // The registrable domain (youtube.com) and the host (m.youtube.com), in ASCII;
            // NULL for every interval on no website. A browser's time is still its own
            // intervals', with or without a website: nothing is counted twice.
            try db.execute(
                sql: """
                    ALTER TABLE usageInterval ADD COLUMN webDomain TEXT;
                    ALTER TABLE usageInterval ADD COLUMN webHost TEXT;
                    """)
        }
        migrator.registerMigration("v9: the websites ever seen, from an index of the intervals on one") { db in
            // The picker lists the websites seen in use: DISTINCT through this index reads
            // one entry per interval on a website, not a year of every application's rows.
            try db.execute(
                sql: "CREATE INDEX usageInterval_byWebDomain ON usageInterval(webDomain) WHERE webDomain IS NOT NULL")
        }
        migrator.registerMigration("v10: a household's database: this ledger's uploads, the other computers' usage") {
            db in
            // docs/household.md. This ledger's intervals go to the household's database under
            // ledgerID, whatever their ids: a ledger made again starts new keys there. Every
            // interval with an id up to uploadedThrough was uploaded closed.
            // The other computers' intervals of the same child, as last read from it: their
            // starts are on this computer's clock (each computer's offset from the database's
            // clock corrected), their keys the other computer's, so reading one again replaces it.
            try db.execute(
                sql: """
                    CREATE TABLE householdUpload (
                      id INTEGER PRIMARY KEY CHECK (id = 1),
                      ledgerID TEXT NOT NULL,
                      uploadedThrough INTEGER NOT NULL DEFAULT 0
                    );
                    CREATE TABLE elsewhereInterval (
                      computer TEXT NOT NULL,
                      ledger TEXT NOT NULL,
                      remoteID INTEGER NOT NULL,
                      computerName TEXT NOT NULL,
                      publicID TEXT NOT NULL,
                      displayName TEXT NOT NULL,
                      categories TEXT NOT NULL,
                      startedAt DOUBLE NOT NULL,
                      duration DOUBLE NOT NULL CHECK (duration >= 0),
                      isOpen BOOLEAN NOT NULL,
                      webDomain TEXT,
                      PRIMARY KEY (computer, ledger, remoteID)
                    );
                    CREATE INDEX elsewhereInterval_byStart ON elsewhereInterval(startedAt);
                    -- How far each other computer's changes were read (its own revision numbers).
                    CREATE TABLE elsewhereCursor (
                      computer TEXT PRIMARY KEY NOT NULL,
                      revision INTEGER NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v11: the household's version of this person's rules known here") { db in
            // docs/household.md: the version of the household's rules document last
            // published from here or taken here, and the document itself (HouseholdRules as
            // JSON): rules that differ from it were changed here since.
            try db.execute(
                sql: """
                    CREATE TABLE householdRules (
                      id INTEGER PRIMARY KEY CHECK (id = 1),
                      version INTEGER NOT NULL,
                      document BLOB NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v12: extra time given on the household's other computers") { db in
            // docs/household.md: a grant given on another computer of the household, kept as
            // one of this ledger's so that it counts the same; origin is its key in the
            // household's database (NULL: given here), and names it once.
            try db.execute(
                sql: """
                    ALTER TABLE ruleGrant ADD COLUMN origin TEXT;
                    CREATE UNIQUE INDEX ruleGrant_byOrigin ON ruleGrant(origin) WHERE origin IS NOT NULL;
                    """)
        }
        return migrator
    }
}
