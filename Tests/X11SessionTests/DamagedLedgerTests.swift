import Foundation
import GRDB
import SessionHarness
import XCTest

/// A ledger the real agent wrote, then damaged on disk in the three ways that
/// matter: the real `screenward-agent` (on a private X server) and every
/// `screenward` command refuse it, say what is wrong and what to do, exit non-zero
/// and leave its files byte for byte as they were.
final class DamagedLedgerTests: XSessionTestCase {
    private struct Outcome {
        var status: Int32
        var output: String
        var error: String
    }

    private func run(_ program: String, _ arguments: [String], home: URL, display: String) throws -> Outcome {
        let process = try ChildProcess(
            try ProjectPrograms.url(of: program), arguments,
            environment: ["SCREENWARD_HOME": home.path, "DISPLAY": display])
        process.closeInput()
        guard let status = process.waitForExit(timeout: 30) else {
            process.stop()
            throw HarnessError.timedOut("\(program) \(arguments) did not exit")
        }
        Thread.sleep(forTimeInterval: 0.05)  // the pipes' last words
        return Outcome(
            status: status, output: process.outputLines.joined(separator: "\n"), error: process.standardError)
    }

    private func contents(_ home: URL) -> [String: Data] {
        var files: [String: Data] = [:]
        for name in ["ledger.sqlite", "ledger.sqlite-wal"] {
            files[name] = FileManager.default.contents(atPath: home.appendingPathComponent(name).path)
        }
        return files
    }

    /// A home holding `ledger` (and its log, when given) and the device secret of the run that wrote it.
    private func home(_ name: String, from source: URL, ledger: Data, log: Data? = nil) throws -> URL {
        let home = temporary.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: source.appendingPathComponent("device-secret"), to: home.appendingPathComponent("device-secret"))
        try ledger.write(to: home.appendingPathComponent("ledger.sqlite"))
        if let log { try log.write(to: home.appendingPathComponent("ledger.sqlite-wal")) }
        return home
    }

    private func pageSize(ofDatabase data: Data) -> Int {
        let size = Int(data[16]) << 8 | Int(data[17])
        return size == 1 ? 65536 : size
    }

    func testTheAgentAndEveryCommandRefuseADamagedLedgerAndLeaveItAsItIs() throws {
        let session = try startXSession()
        let environment = try catalogEnvironment(entries: [:])
        let apps = try DemoApplications(display: session.display, windows: ["editor.Editor", "game.Game"])
        let driver = try FocusDriver(display: session.display)
        try driver.activate(apps.windows[0])

        // A real ledger: a run that tracked and shielded, stopped; a command that read
        // it afterwards (the last connection copies the log into the database).
        var agent = try AgentRun(display: session.display, home: home, environment: environment)
        for window in [apps.windows[1], apps.windows[0], apps.windows[1]] {
            try driver.activate(window)
            Thread.sleep(forTimeInterval: 0.2)
        }
        _ = try agent.cli(["shield", "add", "--app", "wmclass:Game"])
        XCTAssertEqual(agent.stop(), 0)
        XCTAssertGreaterThan(try agent.usage().seconds(of: "wmclass:Game"), 0.3)
        let ledgerURL = home.appendingPathComponent("ledger.sqlite")
        XCTAssertFalse(FileManager.default.fileExists(atPath: ledgerURL.path + "-wal"), "a closed ledger has no log")
        let clean = try Data(contentsOf: ledgerURL)

        // A second run, killed: what it wrote is still in the log.
        agent = try AgentRun(display: session.display, home: home, environment: environment)
        for window in [apps.windows[0], apps.windows[1], apps.windows[0], apps.windows[1]] {
            try driver.activate(window)
            Thread.sleep(forTimeInterval: 0.15)
        }
        Thread.sleep(forTimeInterval: 1.2)  // a checkpoint or two
        agent.process.signal(SIGKILL)
        agent.process.waitForExit()
        let crashedLedger = try Data(contentsOf: ledgerURL)
        let crashedLog = try Data(contentsOf: URL(fileURLWithPath: ledgerURL.path + "-wal"))

        // 1. Pages after a valid header overwritten.
        var corrupt = clean
        let size = pageSize(ofDatabase: clean)
        let pages = clean.count / size
        XCTAssertGreaterThan(pages, 6)
        // Pages 2 and 3: the roots of the first tables (page 1 holds the header and the schema).
        for offset in size..<(3 * size) { corrupt[offset] = UInt8(truncatingIfNeeded: (offset &* 2_654_435_761) >> 13) }

        // 2. A good database next to a log whose second frame went bad, with commits after it.
        var damagedLog = crashedLog
        let walPageSize =
            Int(crashedLog[8]) << 24 | Int(crashedLog[9]) << 16 | Int(crashedLog[10]) << 8 | Int(crashedLog[11])
        let secondPage = 32 + (24 + walPageSize) + 24
        XCTAssertGreaterThan(
            crashedLog.count, 32 + 6 * (24 + walPageSize), "the killed run left several commits in the log")
        for offset in (secondPage + 512)..<(secondPage + 520) { damagedLog[offset] ^= 0xa5 }

        // 3. A schema from a newer version: a migration this program does not know.
        let newerHome = try home("newer", from: home, ledger: clean)
        do {
            let queue = try DatabaseQueue(path: newerHome.appendingPathComponent("ledger.sqlite").path)
            try queue.write { db in
                try db.execute(sql: "CREATE TABLE usageGoal (id INTEGER PRIMARY KEY, seconds DOUBLE NOT NULL)")
                try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v4: usage goals')")
            }
            try queue.close()
        }

        let cases: [(name: String, home: URL, says: String)] = [
            ("corrupt pages", try home("corrupt", from: home, ledger: corrupt), "is damaged: SQLite"),
            (
                "damaged log", try home("damaged-log", from: home, ledger: crashedLedger, log: damagedLog),
                "is damaged: frame 2 of its write-ahead log (-wal) is damaged, and a transaction committed after it"
            ),
            (
                "newer schema", newerHome,
                """
                was written by a newer version of Screenward: its schema has changes this program does not know \
                (\"v4: usage goals\")
                """
            ),
        ]
        let commands = [
            ["usage"], ["usage", "--json"], ["status"], ["status", "--json"], ["shields"], ["shields", "--json"],
            ["select", "--for", "org.example.app", "--app", "wmclass:Game"],
            ["shield", "add", "--app", "wmclass:Game"], ["shield", "remove", "--app", "wmclass:Game"],
        ]
        for (name, caseHome, says) in cases {
            let before = contents(caseHome)
            let ledgerPath = caseHome.appendingPathComponent("ledger.sqlite").path

            let agentRun = try run("screenward-agent", [], home: caseHome, display: session.display)
            XCTAssertNotEqual(agentRun.status, 0, "\(name): the agent exits with an error")
            for expected in [says, ledgerPath, "left it as it is", "mkdir ", "mv '\(ledgerPath)'"] {
                XCTAssertTrue(
                    agentRun.error.contains(expected), "\(name): the agent says \"\(expected)\": \(agentRun.error)")
            }
            XCTAssertFalse(agentRun.error.contains("tracking"), "\(name): the agent never tracked: \(agentRun.error)")

            for command in commands {
                let outcome = try run("screenward", command, home: caseHome, display: session.display)
                XCTAssertEqual(outcome.status, 1, "\(name): screenward \(command.joined(separator: " ")) fails")
                XCTAssertTrue(
                    outcome.error.contains(says),
                    "\(name): screenward \(command.joined(separator: " ")) says why: \(outcome.error)")
                XCTAssertTrue(outcome.error.contains("left it as it is"), "\(name): \(command): \(outcome.error)")
                XCTAssertEqual(
                    outcome.output, "", "\(name): screenward \(command.joined(separator: " ")) prints no result")
            }
            XCTAssertEqual(contents(caseHome), before, "\(name): the ledger and its log are byte for byte as they were")
            XCTAssertNotNil(before["ledger.sqlite"])
            if name == "damaged log" { XCTAssertEqual(before["ledger.sqlite-wal"], damagedLog) }
        }

        // The undamaged crash image is fine: the damage, not the crash, was refused.
        let intact = try home("intact", from: home, ledger: crashedLedger, log: crashedLog)
        let usage = try run(
            "screenward", ["usage", "--json", "--since", "2000-01-01"], home: intact, display: session.display)
        XCTAssertEqual(usage.status, 0, usage.error)
        XCTAssertTrue(usage.output.contains("wmclass:Game"), usage.output)
    }
}
