import Foundation
import GRDB
@_spi(Screenward) import ManagedSettings
import XCTest

@testable import ScreenwardCore
@testable import UsageLedger

/// A damaged ledger, or one a newer version wrote, is refused with a message that
/// says what to do, and its files are left byte for byte as they were.
final class LedgerDamageTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory()
    }

    private let app = AppIdentity(key: .windowClass("Term"), displayName: "Term")
    private let token = ApplicationToken(opaqueValue: "abc")
    private let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// `transactions` committed intervals of 10 s each, as a session of the agent writes them.
    private func record(_ transactions: Int, in ledger: Ledger) throws {
        let session = try ledger.beginAgentSession(pid: 1, display: ":1", at: start).sessionID
        for index in 0..<transactions {
            let id = try ledger.openInterval(
                sessionID: session, app: app, token: token, startingAt: start.addingTimeInterval(Double(index) * 10))
            try ledger.closeInterval(id, duration: .seconds(10), reason: .focusChange)
        }
    }

    private func totalSeconds(_ ledger: Ledger) throws -> Double {
        try ledger.usage(since: start, until: start.addingTimeInterval(86_400), liveSessionID: nil, now: start)
            .totalSeconds
    }

    /// The files a killed agent leaves: the database and a write-ahead log that holds
    /// `transactions` commits (copied while the connection is open, as a crash leaves them).
    private func crashImage(transactions: Int) throws -> URL {
        let live = directory.appendingPathComponent("live/ledger.sqlite")
        try FileManager.default.createDirectory(at: live.deletingLastPathComponent(), withIntermediateDirectories: true)
        let copy = directory.appendingPathComponent("crashed/ledger.sqlite")
        try FileManager.default.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
        let ledger = try Ledger(url: live)
        try ledger.database.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
        try record(transactions, in: ledger)
        try FileManager.default.copyItem(atPath: live.path, toPath: copy.path)
        try FileManager.default.copyItem(atPath: live.path + "-wal", toPath: copy.path + "-wal")
        return copy
    }

    private func bytes(_ url: URL) -> [String: Data] {
        var files: [String: Data] = [:]
        for suffix in ["", "-wal"] {
            files[suffix] = FileManager.default.contents(atPath: url.path + suffix)
        }
        return files
    }

    private func assertRefused(_ url: URL, saying expected: String, file: StaticString = #filePath, line: UInt = #line)
    {
        let before = bytes(url)
        XCTAssertThrowsError(try Ledger(url: url), file: file, line: line) { error in
            let message = "\(error)"
            XCTAssertTrue(message.contains(expected), message, file: file, line: line)
            XCTAssertTrue(message.contains(url.path), "names the file: \(message)", file: file, line: line)
            XCTAssertTrue(message.contains("left it as it is"), message, file: file, line: line)
            XCTAssertTrue(
                message.contains("mkdir ") && message.contains("mv '\(url.path)'"),
                "says how to move it aside: \(message)", file: file, line: line)
        }
        XCTAssertThrowsError(try Ledger.verify(at: url), file: file, line: line)
        XCTAssertEqual(bytes(url), before, "the files are byte for byte as they were", file: file, line: line)
    }

    private func walPageSize(_ wal: Data) -> Int {
        Int(wal[8]) << 24 | Int(wal[9]) << 16 | Int(wal[10]) << 8 | Int(wal[11])
    }

    func testACrashImageOpensWithEveryCommittedTransaction() throws {
        let url = try crashImage(transactions: 20)
        XCTAssertNil(WriteAheadLog([UInt8](try Data(contentsOf: URL(fileURLWithPath: url.path + "-wal")))).damage)
        XCTAssertEqual(try totalSeconds(try Ledger(url: url)), 200, accuracy: 1e-9)
    }

    func testAWriteAheadLogDamagedBeforeACommittedTransactionIsRefused() throws {
        let url = try crashImage(transactions: 20)
        let walURL = URL(fileURLWithPath: url.path + "-wal")
        var wal = try Data(contentsOf: walURL)
        // A few bytes of the second frame's page turn to garbage (a bad sector, a bad copy).
        let secondPage =
            WriteAheadLog.headerSize + (WriteAheadLog.frameHeaderSize + walPageSize(wal))
            + WriteAheadLog.frameHeaderSize
        for offset in secondPage + 100..<secondPage + 140 { wal[offset] ^= 0x5a }
        try wal.write(to: walURL)
        XCTAssertNotNil(WriteAheadLog([UInt8](wal)).damage)
        assertRefused(url, saying: "frame 2 of its write-ahead log (-wal) is damaged")
    }

    func testAWriteAheadLogWithABrokenHeaderIsRefused() throws {
        let url = try crashImage(transactions: 5)
        let walURL = URL(fileURLWithPath: url.path + "-wal")
        var wal = try Data(contentsOf: walURL)
        wal[17] ^= 0xff  // the first salt: SQLite would ignore every frame
        try wal.write(to: walURL)
        assertRefused(url, saying: "header of its write-ahead log (-wal) fails its checksum")
    }

    /// What a crash in the middle of a commit leaves is not damage: the transaction cut
    /// short is dropped and everything before it is kept.
    func testATornTailIsNotDamage() throws {
        let url = try crashImage(transactions: 20)
        let walURL = URL(fileURLWithPath: url.path + "-wal")
        let original = try Data(contentsOf: walURL)
        let frameSize = WriteAheadLog.frameHeaderSize + walPageSize(original)
        // The last frame complete but the end of its page never written.
        var garbled = original
        for offset in (garbled.count - 300)..<garbled.count { garbled[offset] = 0 }
        XCTAssertNil(WriteAheadLog([UInt8](garbled)).damage)
        // The last frame half written.
        let torn = original.prefix(original.count - frameSize / 2)
        XCTAssertNil(WriteAheadLog([UInt8](torn)).damage)
        try torn.write(to: walURL)

        let total = try totalSeconds(try Ledger(url: url))
        XCTAssertLessThan(total, 200)
        XCTAssertGreaterThanOrEqual(total, 190, "only the last transaction is lost")
    }

    func testCorruptPagesAfterAValidHeaderAreRefused() throws {
        let url = directory.appendingPathComponent("ledger.sqlite")
        try record(200, in: try Ledger(url: url))  // closed: the log is copied into the database
        XCTAssertFalse(FileManager.default.fileExists(atPath: url.path + "-wal"))
        var database = try Data(contentsOf: url)
        let pageSize = Int(database[16]) << 8 | Int(database[17])
        XCTAssertGreaterThan(database.count / pageSize, 4)
        // Pages 3 and 4 overwritten; page 1, with the header and the schema, is intact.
        for offset in (2 * pageSize)..<(4 * pageSize) {
            database[offset] = UInt8(truncatingIfNeeded: (offset &* 7919) >> 3)
        }
        try database.write(to: url)
        assertRefused(url, saying: "is damaged: SQLite")
    }

    func testAFileThatIsNotADatabaseIsRefused() throws {
        let url = directory.appendingPathComponent("ledger.sqlite")
        try Data(repeating: 0x5a, count: 8192).write(to: url)
        assertRefused(url, saying: "is damaged")
    }

    func testAnEmptyDatabaseNextToAWriteAheadLogIsRefused() throws {
        let image = try crashImage(transactions: 3)
        try Data().write(to: image)
        assertRefused(image, saying: "the database file is empty but its write-ahead log (-wal) holds")
    }

    func testALedgerWithAMigrationThisProgramDoesNotKnowIsRefused() throws {
        let url = directory.appendingPathComponent("ledger.sqlite")
        do {
            let ledger = try Ledger(url: url)
            try record(3, in: ledger)
            try ledger.database.write { db in
                try db.execute(sql: "CREATE TABLE futureThing (id INTEGER PRIMARY KEY)")
                try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v9: from the future')")
            }
        }
        assertRefused(
            url,
            saying:
                """
                written by a newer version of Screenward: its schema has changes this program does not know \
                (\"v9: from the future\")
                """
        )
    }

    func testALedgerWithAUserVersionIsRefused() throws {
        let url = directory.appendingPathComponent("ledger.sqlite")
        do {
            let ledger = try Ledger(url: url)
            try ledger.database.writeWithoutTransaction { try $0.execute(sql: "PRAGMA user_version = 12") }
        }
        assertRefused(url, saying: "its schema version is 12")
    }

    func testAHealthyLedgerPassesWhileItsWriterIsOpen() throws {
        let url = directory.appendingPathComponent("ledger.sqlite")
        let ledger = try Ledger(url: url)
        try ledger.database.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
        try record(50, in: ledger)
        XCTAssertNoThrow(try Ledger.verify(at: url))
        XCTAssertEqual(
            try totalSeconds(try Ledger(url: url)), 500, accuracy: 1e-9,
            "a second connection (the command line) reads it all")
    }
}
