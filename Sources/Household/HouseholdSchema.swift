import Foundation

/// The household database's schema history, applied by its owner role (`household create`,
/// and again by a newer Screenward there). A migration that has shipped is never edited: a
/// change is a new one appended here, as with the ledger's.
///
/// Who may do what is the schema's, not the programs': each computer logs in as a role of
/// its own, a member of `screenward_computers`, and row-level security lets it write only
/// rows that name it (docs/household.md). A join code opens a one-time role, a member of
/// `screenward_invitations`, that may only call `join_household`.
enum HouseholdSchema {
    struct Migration {
        let name: String
        let sql: String

        /// Its statements one by one (the extended protocol takes one at a time): split at
        /// each line that ends with `;` outside a `$$` function body.
        var statements: [String] {
            var statements: [String] = []
            var current: [Substring] = []
            var inBody = false
            for line in sql.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.trimmingCharacters(in: .whitespaces).hasPrefix("--") { continue }
                current.append(line)
                if line.components(separatedBy: "$$").count % 2 == 0 { inBody.toggle() }
                if !inBody, line.hasSuffix(";") {
                    statements.append(current.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines))
                    current = []
                }
            }
            let rest = current.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
            if !rest.isEmpty { statements.append(rest) }
            return statements
        }
    }

    static let migrations: [Migration] = [
        Migration(
            name: "v1: computers, invitations, children, usage",
            sql: """
                CREATE ROLE screenward_computers NOLOGIN;
                CREATE ROLE screenward_invitations NOLOGIN;
                REVOKE ALL ON SCHEMA public FROM PUBLIC;
                GRANT USAGE ON SCHEMA public TO screenward_computers, screenward_invitations;

                -- A computer of the household: its own login role, the name people know it by.
                -- revision goes up by one with each upload of its usage, in that upload's
                -- transaction, which holds this row's lock until it commits: a computer's
                -- changes commit in the order of their revisions, so a reader that has seen
                -- revision N of a computer has seen everything that computer wrote up to N.
                CREATE TABLE computer (
                  role name PRIMARY KEY,
                  name text NOT NULL,
                  joined_at timestamptz NOT NULL DEFAULT now(),
                  last_seen timestamptz,
                  revision bigint NOT NULL DEFAULT 0,
                  left_at timestamptz
                );
                CREATE UNIQUE INDEX computer_by_name ON computer (name) WHERE left_at IS NULL;

                -- A join code: the login role it opens, until it is used or expires.
                CREATE TABLE invitation (
                  role name PRIMARY KEY,
                  made_by text NOT NULL,
                  made_at timestamptz NOT NULL DEFAULT now(),
                  expires_at timestamptz NOT NULL,
                  used_by name REFERENCES computer (role),
                  used_at timestamptz
                );

                -- A managed person, one across the household whatever their uid on each computer.
                CREATE TABLE child (
                  name text PRIMARY KEY,
                  added_at timestamptz NOT NULL DEFAULT now(),
                  added_by name NOT NULL DEFAULT current_user
                );

                -- Each computer's usage intervals, keyed by the computer, its ledger and the
                -- interval's id there: sending one again changes nothing but its length.
                -- started_at is on the computer's clock; clock_skew is the database's clock
                -- minus the computer's at the upload that last wrote the row.
                CREATE TABLE usage_interval (
                  computer name NOT NULL DEFAULT current_user REFERENCES computer (role),
                  ledger uuid NOT NULL,
                  local_id bigint NOT NULL,
                  child text NOT NULL REFERENCES child (name),
                  application text NOT NULL,
                  application_name text NOT NULL,
                  categories text NOT NULL DEFAULT '',
                  started_at double precision NOT NULL,
                  clock_skew double precision NOT NULL DEFAULT 0,
                  duration double precision NOT NULL CHECK (duration >= 0),
                  is_open boolean NOT NULL,
                  web_domain text,
                  revision bigint NOT NULL,
                  PRIMARY KEY (computer, ledger, local_id)
                );
                CREATE INDEX usage_interval_by_child ON usage_interval (child, computer, revision);

                ALTER TABLE computer ENABLE ROW LEVEL SECURITY;
                CREATE POLICY computers_read ON computer FOR SELECT TO screenward_computers USING (true);
                CREATE POLICY computers_update_own ON computer FOR UPDATE TO screenward_computers
                  USING (role = current_user) WITH CHECK (role = current_user);
                ALTER TABLE usage_interval ENABLE ROW LEVEL SECURITY;
                CREATE POLICY usage_read ON usage_interval FOR SELECT TO screenward_computers USING (true);
                CREATE POLICY usage_insert_own ON usage_interval FOR INSERT TO screenward_computers
                  WITH CHECK (computer = current_user);
                CREATE POLICY usage_update_own ON usage_interval FOR UPDATE TO screenward_computers
                  USING (computer = current_user) WITH CHECK (computer = current_user);
                GRANT SELECT, UPDATE (last_seen, revision) ON computer TO screenward_computers;
                GRANT SELECT, INSERT ON child TO screenward_computers;
                GRANT SELECT, INSERT, UPDATE (duration, is_open, revision, clock_skew) ON usage_interval
                  TO screenward_computers;
                GRANT SELECT ON invitation TO screenward_computers;

                -- Called by the one-time role a join code opens: makes the computer's own role,
                -- uses the code up (its role can no longer log in) and says the new role's name.
                CREATE FUNCTION join_household(computer_name text, password text) RETURNS name
                LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
                DECLARE
                  invitation_role name := session_user;
                  new_role name;
                BEGIN
                  PERFORM 1 FROM invitation
                    WHERE role = invitation_role AND used_by IS NULL AND expires_at > now() FOR UPDATE;
                  IF NOT FOUND THEN
                    RAISE EXCEPTION 'this join code was used or has expired' USING ERRCODE = 'SW001';
                  END IF;
                  IF EXISTS (SELECT 1 FROM computer WHERE name = computer_name AND left_at IS NULL) THEN
                    RAISE EXCEPTION 'a computer named "%" is already in this household', computer_name
                      USING ERRCODE = 'SW002';
                  END IF;
                  new_role := 'screenward_computer_' || substr(md5(gen_random_uuid()::text), 1, 16);
                  EXECUTE format('CREATE ROLE %I LOGIN PASSWORD %L IN ROLE screenward_computers', new_role, password);
                  INSERT INTO computer (role, name) VALUES (new_role, computer_name);
                  UPDATE invitation SET used_by = new_role, used_at = now() WHERE role = invitation_role;
                  EXECUTE format('ALTER ROLE %I NOLOGIN', invitation_role);
                  RETURN new_role;
                END $$;
                REVOKE ALL ON FUNCTION join_household (text, text) FROM PUBLIC;
                GRANT EXECUTE ON FUNCTION join_household (text, text) TO screenward_invitations;

                -- A computer of the household (or the owner) makes a join code for another:
                -- the one-time role is screenward_join_<suffix>, its password the code's secret.
                CREATE FUNCTION make_invitation(made_by text, suffix text, secret text, lifetime interval)
                RETURNS timestamptz
                LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
                DECLARE
                  new_role name := 'screenward_join_' || suffix;
                  expires timestamptz := now() + lifetime;
                BEGIN
                  IF session_user <> current_user
                     AND NOT EXISTS (SELECT 1 FROM computer WHERE role = session_user AND left_at IS NULL) THEN
                    RAISE EXCEPTION 'only a computer of this household can invite another' USING ERRCODE = 'SW003';
                  END IF;
                  IF suffix !~ '^[0-9a-z]{10}$' THEN
                    RAISE EXCEPTION 'a join code''s name is ten letters or digits' USING ERRCODE = 'SW004';
                  END IF;
                  EXECUTE format('CREATE ROLE %I LOGIN PASSWORD %L VALID UNTIL %L IN ROLE screenward_invitations',
                    new_role, secret, expires::text);
                  INSERT INTO invitation (role, made_by, expires_at) VALUES (new_role, made_by, expires);
                  RETURN expires;
                END $$;
                REVOKE ALL ON FUNCTION make_invitation (text, text, text, interval) FROM PUBLIC;
                GRANT EXECUTE ON FUNCTION make_invitation (text, text, text, interval) TO screenward_computers;

                -- A computer leaves: it is marked gone and its role can no longer log in. What
                -- it recorded stays: that time was used.
                CREATE FUNCTION leave_household() RETURNS void
                LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
                BEGIN
                  UPDATE computer SET left_at = now() WHERE role = session_user AND left_at IS NULL;
                  IF NOT FOUND THEN
                    RAISE EXCEPTION 'this computer is not in the household' USING ERRCODE = 'SW005';
                  END IF;
                  EXECUTE format('ALTER ROLE %I NOLOGIN', session_user);
                END $$;
                REVOKE ALL ON FUNCTION leave_household () FROM PUBLIC;
                GRANT EXECUTE ON FUNCTION leave_household () TO screenward_computers;
                """),
        Migration(
            name: "v2: each child's rules, as the household shares them",
            sql: """
                -- A child's rules and always-allowed applications (HouseholdRules as JSON). Any
                -- computer of the household writes them (a guardian changed them there), naming
                -- itself; version goes up by one with each change, the latest one wins.
                CREATE TABLE child_rules (
                  child text PRIMARY KEY REFERENCES child (name),
                  document jsonb NOT NULL,
                  version bigint NOT NULL,
                  changed_on name NOT NULL DEFAULT current_user REFERENCES computer (role),
                  changed_at timestamptz NOT NULL DEFAULT now()
                );
                ALTER TABLE child_rules ENABLE ROW LEVEL SECURITY;
                CREATE POLICY rules_read ON child_rules FOR SELECT TO screenward_computers USING (true);
                CREATE POLICY rules_insert ON child_rules FOR INSERT TO screenward_computers
                  WITH CHECK (changed_on = current_user);
                CREATE POLICY rules_update ON child_rules FOR UPDATE TO screenward_computers
                  USING (true) WITH CHECK (changed_on = current_user);
                GRANT SELECT, INSERT, UPDATE ON child_rules TO screenward_computers;
                """),
        Migration(
            name: "v3: requests for more time, and guardians' answers from any computer",
            sql: """
                -- A child's request, as the computer it was asked on keeps it (its state there).
                CREATE TABLE time_request (
                  computer name NOT NULL DEFAULT current_user REFERENCES computer (role),
                  ledger uuid NOT NULL,
                  local_id bigint NOT NULL,
                  child text NOT NULL REFERENCES child (name),
                  rule text NOT NULL,
                  application_name text NOT NULL,
                  asked_at timestamptz NOT NULL,
                  state text NOT NULL,
                  PRIMARY KEY (computer, ledger, local_id)
                );
                CREATE INDEX time_request_by_child ON time_request (child, asked_at);
                -- A guardian's answer, given on another computer (which names itself); one per
                -- request: the first answer stands.
                CREATE TABLE time_answer (
                  computer name NOT NULL,
                  ledger uuid NOT NULL,
                  local_id bigint NOT NULL,
                  approved boolean NOT NULL,
                  seconds double precision,
                  answered_by text NOT NULL,
                  answered_on name NOT NULL DEFAULT current_user REFERENCES computer (role),
                  answered_at timestamptz NOT NULL DEFAULT now(),
                  PRIMARY KEY (computer, ledger, local_id),
                  FOREIGN KEY (computer, ledger, local_id) REFERENCES time_request (computer, ledger, local_id)
                );
                ALTER TABLE time_request ENABLE ROW LEVEL SECURITY;
                CREATE POLICY requests_read ON time_request FOR SELECT TO screenward_computers USING (true);
                CREATE POLICY requests_insert_own ON time_request FOR INSERT TO screenward_computers
                  WITH CHECK (computer = current_user);
                CREATE POLICY requests_update_own ON time_request FOR UPDATE TO screenward_computers
                  USING (computer = current_user) WITH CHECK (computer = current_user);
                ALTER TABLE time_answer ENABLE ROW LEVEL SECURITY;
                CREATE POLICY answers_read ON time_answer FOR SELECT TO screenward_computers USING (true);
                CREATE POLICY answers_insert_own ON time_answer FOR INSERT TO screenward_computers
                  WITH CHECK (answered_on = current_user AND computer <> current_user);
                GRANT SELECT, INSERT, UPDATE (state) ON time_request TO screenward_computers;
                GRANT SELECT, INSERT ON time_answer TO screenward_computers;
                """),
        Migration(
            name: "v4: extra time on a child's limits, given on any computer, counted on all",
            sql: """
                -- Extra time on a limit for the day it was given in, as the computer that gave it
                -- keeps it (a guardian's approval there, or an answer from elsewhere applied
                -- there). Never changed once written. Times are on the database's clock (the
                -- giving computer's plus its skew); seconds NULL: the rest of the day.
                CREATE TABLE extra_time (
                  computer name NOT NULL DEFAULT current_user REFERENCES computer (role),
                  ledger uuid NOT NULL,
                  local_id bigint NOT NULL,
                  child text NOT NULL REFERENCES child (name),
                  rule text NOT NULL,
                  seconds double precision CHECK (seconds > 0),
                  granted_at double precision NOT NULL,
                  granted_by text NOT NULL,
                  day_start double precision NOT NULL,
                  day_end double precision NOT NULL CHECK (day_end > day_start),
                  PRIMARY KEY (computer, ledger, local_id)
                );
                CREATE INDEX extra_time_by_child ON extra_time (child, day_end);
                ALTER TABLE extra_time ENABLE ROW LEVEL SECURITY;
                CREATE POLICY extra_time_read ON extra_time FOR SELECT TO screenward_computers USING (true);
                CREATE POLICY extra_time_insert_own ON extra_time FOR INSERT TO screenward_computers
                  WITH CHECK (computer = current_user);
                GRANT SELECT, INSERT ON extra_time TO screenward_computers;
                """),
        Migration(
            name: "v5: what happened to a child's limits on each computer, for the guardians on every other",
            sql: """
                -- A child's event (`screenward child events`) as the computer it happened on
                -- recorded it; never changed. at is on the database's clock; written_at says
                -- when it arrived, which the other computers read from.
                CREATE TABLE child_event (
                  computer name NOT NULL DEFAULT current_user REFERENCES computer (role),
                  ledger uuid NOT NULL,
                  local_id bigint NOT NULL,
                  child text NOT NULL REFERENCES child (name),
                  at double precision NOT NULL,
                  kind text NOT NULL,
                  actor text NOT NULL,
                  detail text NOT NULL,
                  written_at timestamptz NOT NULL DEFAULT clock_timestamp(),
                  PRIMARY KEY (computer, ledger, local_id)
                );
                CREATE INDEX child_event_by_child ON child_event (child, written_at);
                ALTER TABLE child_event ENABLE ROW LEVEL SECURITY;
                CREATE POLICY child_event_read ON child_event FOR SELECT TO screenward_computers USING (true);
                CREATE POLICY child_event_insert_own ON child_event FOR INSERT TO screenward_computers
                  WITH CHECK (computer = current_user);
                GRANT SELECT, INSERT ON child_event TO screenward_computers;
                """),
        Migration(
            name: "v6: a child managed or not by the household, as a guardian said on any computer",
            sql: """
                -- A guardian's `child add` on any computer makes the child managed on every computer
                -- with an account of that name; `child remove` on any stops it on all. A computer's
                -- uploads name a child it manages (managed by default); the latest change wins.
                ALTER TABLE child ADD COLUMN managed boolean NOT NULL DEFAULT true;
                ALTER TABLE child ADD COLUMN changed_by text;
                ALTER TABLE child ADD COLUMN changed_on name REFERENCES computer (role);
                ALTER TABLE child ADD COLUMN changed_at double precision;
                GRANT UPDATE (managed, changed_by, changed_on, changed_at) ON child TO screenward_computers;
                """),
        Migration(
            name: "v7: each computer's guardians, which its answers to requests are checked against",
            sql: """
                -- Each computer's guardians (root, and the members of its guardian group) as it
                -- last said: an answer to a request, given on a computer, is applied only when
                -- the one who gave it is among that computer's guardians.
                CREATE TABLE household_guardian (
                  computer name NOT NULL DEFAULT current_user REFERENCES computer (role),
                  name text NOT NULL,
                  PRIMARY KEY (computer, name)
                );
                ALTER TABLE household_guardian ENABLE ROW LEVEL SECURITY;
                CREATE POLICY guardian_read ON household_guardian FOR SELECT TO screenward_computers USING (true);
                CREATE POLICY guardian_insert_own ON household_guardian FOR INSERT TO screenward_computers
                  WITH CHECK (computer = current_user);
                CREATE POLICY guardian_delete_own ON household_guardian FOR DELETE TO screenward_computers
                  USING (computer = current_user);
                GRANT SELECT, INSERT, DELETE ON household_guardian TO screenward_computers;
                """),
    ]
}
