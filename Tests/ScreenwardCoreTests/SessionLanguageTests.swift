import Foundation
import XCTest

@testable import ScreenwardCore

/// The language a managed user's session speaks, as the daemon keeps it (from their tray):
/// only a language is taken, it is kept across the daemon's restarts, and a repeat is no news.
final class SessionLanguageTests: XCTestCase {
    func testTheDaemonKeepsEachManagedUsersSessionLanguage() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("daemon.sqlite")
        let state = try DaemonState(url: url)
        _ = try state.manage(Account(name: "kid", uid: 1001, gid: 1001, groups: []), by: "guard", at: Date())

        XCTAssertNil(try state.sessionLanguage(uid: 1001), "nothing before the session has said")
        XCTAssertTrue(try state.recordSessionLanguage("ko", uid: 1001))
        XCTAssertFalse(try state.recordSessionLanguage("ko", uid: 1001), "the same language again is no news")
        XCTAssertTrue(try state.recordSessionLanguage("vi", uid: 1001))
        for hostile in ["../../etc", "ko_KR", "", String(repeating: "k", count: 10_000)] {
            XCTAssertThrowsError(try state.recordSessionLanguage(hostile, uid: 1001), hostile)
        }
        XCTAssertFalse(try state.recordSessionLanguage("ko", uid: 4242), "not a managed user: nothing kept")
        XCTAssertNil(try state.sessionLanguage(uid: 4242))

        let reopened = try DaemonState(url: url)
        XCTAssertEqual(try reopened.sessionLanguage(uid: 1001), "vi", "kept across the daemon's restarts")
    }

    func testASessionLanguageTakesOnlyALanguage() {
        let language = SessionLanguage("ko")
        XCTAssertFalse(language.set("ko"))
        XCTAssertFalse(language.set("../x"))
        XCTAssertEqual(language.current, "ko")
        XCTAssertTrue(language.set("vi"))
        XCTAssertEqual(language.current, "vi")
        XCTAssertEqual(SessionLanguage("a/b").current, "en")
    }
}
