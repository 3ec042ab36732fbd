import Foundation
@_spi(Screenward) import ManagedSettings
import XCTest

@testable import ScreenwardCore

final class TokenAndHomeTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory()
    }

    func testTheSecretIsCreatedOncePrivateAndReused() throws {
        let url = directory.appendingPathComponent("device-secret")
        let first = try DeviceSecret.loadOrCreate(at: url)
        let again = try DeviceSecret.loadOrCreate(at: url)
        XCTAssertEqual(first.bytes, again.bytes)
        XCTAssertEqual(first.bytes.count, 32)
        let mode = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber
        XCTAssertEqual(mode?.intValue, 0o600)
    }

    func testDamagedOrExposedSecretsAreRefused() throws {
        let url = directory.appendingPathComponent("device-secret")
        _ = FileManager.default.createFile(
            atPath: url.path, contents: Data([1, 2, 3]), attributes: [.posixPermissions: 0o600])
        XCTAssertThrowsError(try DeviceSecret.loadOrCreate(at: url)) { XCTAssertTrue("\($0)".contains("3 bytes")) }
        try FileManager.default.removeItem(at: url)
        _ = FileManager.default.createFile(
            atPath: url.path, contents: Data(count: 32), attributes: [.posixPermissions: 0o644])
        XCTAssertThrowsError(try DeviceSecret.loadOrCreate(at: url)) { XCTAssertTrue("\($0)".contains("chmod 600")) }
    }

    func testTokensAreStableOpaqueAndSecretDependent() throws {
        let firefox = AppIdentity(key: .desktopEntry("firefox.desktop"), displayName: "Firefox")
        let minter = TokenMinter(secret: DeviceSecret(bytes: Array(repeating: 1, count: 32)))
        let other = TokenMinter(secret: DeviceSecret(bytes: Array(repeating: 2, count: 32)))
        let token = minter.applicationToken(for: firefox)
        XCTAssertEqual(token, minter.applicationToken(for: firefox))
        XCTAssertNotEqual(token, other.applicationToken(for: firefox))
        XCTAssertNotEqual(
            token, minter.applicationToken(for: AppIdentity(key: .windowClass("firefox.desktop"), displayName: "x")))
        XCTAssertFalse(token.opaqueValue.lowercased().contains("firefox"))
        XCTAssertEqual(token.opaqueValue.count, 22)

        let encoded = try JSONEncoder().encode([token])
        XCTAssertEqual(try JSONDecoder().decode([ApplicationToken].self, from: encoded), [token])
        XCTAssertThrowsError(try JSONDecoder().decode([ApplicationToken].self, from: Data(#"["<script>"]"#.utf8)))
    }

    func testHomeFollowsTheEnvironment() {
        XCTAssertEqual(ScreenwardHome.fromEnvironment(["SCREENWARD_HOME": "/x/y"]).url.path, "/x/y")
        XCTAssertEqual(ScreenwardHome.fromEnvironment(["XDG_DATA_HOME": "/d", "HOME": "/h"]).url.path, "/d/screenward")
        XCTAssertEqual(ScreenwardHome.fromEnvironment(["HOME": "/h"]).url.path, "/h/.local/share/screenward")
    }

    func testTheAgentLockIsExclusiveAndVisible() throws {
        let home = ScreenwardHome(url: directory)
        XCTAssertFalse(AgentLock.isHeld(in: home))
        var lock: AgentLock? = try AgentLock.acquire(in: home)
        // Held, as another process sees it, and the file names the holder.
        XCTAssertTrue(AgentLock.isHeld(in: home))
        let holder = try String(contentsOf: home.agentLockURL, encoding: .utf8)
        XCTAssertEqual(holder, "\(ProcessInfo.processInfo.processIdentifier)\n")
        // flock is per open file: a second acquisition, like a second agent, fails and names the holder.
        XCTAssertThrowsError(try AgentLock.acquire(in: home)) {
            XCTAssertTrue("\($0)".contains("already runs"), "\($0)")
            XCTAssertTrue("\($0)".contains("pid \(ProcessInfo.processInfo.processIdentifier)"), "\($0)")
        }
        XCTAssertTrue(AgentLock.isHeld(in: home), "the refused attempt left the holder's lock alone")
        withExtendedLifetime(lock) {}
        lock = nil
        XCTAssertFalse(AgentLock.isHeld(in: home))
    }

    func testTimeArguments() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Berlin")!
        let now = try XCTUnwrap(ISO8601DateFormatter().date(from: "2026-11-21T20:00:00Z"))
        XCTAssertEqual(
            try TimeArgument("today").resolve(now: now, calendar: calendar),
            ISO8601DateFormatter().date(from: "2026-11-20T23:00:00Z"))
        XCTAssertEqual(
            try TimeArgument("yesterday").resolve(now: now, calendar: calendar),
            ISO8601DateFormatter().date(from: "2026-11-19T23:00:00Z"))
        XCTAssertEqual(
            try TimeArgument("2026-11-21T14:30").resolve(now: now, calendar: calendar),
            ISO8601DateFormatter().date(from: "2026-11-21T13:30:00Z"))
        XCTAssertEqual(
            try TimeArgument("2026-11-21T14:30:00Z").resolve(now: now, calendar: calendar),
            ISO8601DateFormatter().date(from: "2026-11-21T14:30:00Z"))
        XCTAssertEqual(
            try TimeArgument("2026-11-21").resolve(now: now, calendar: calendar),
            ISO8601DateFormatter().date(from: "2026-11-20T23:00:00Z"))
        XCTAssertThrowsError(try TimeArgument("last tuesday").resolve(now: now, calendar: calendar))
        XCTAssertThrowsError(try TimeArgument("2026-13-45").resolve(now: now, calendar: calendar))
    }
}
