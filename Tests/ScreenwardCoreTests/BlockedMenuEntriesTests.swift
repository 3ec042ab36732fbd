import Foundation
@_spi(Screenward) import ManagedSettings
import XCTest

@testable import ScreenTimePolicy
@testable import ScreenwardCore

/// Blocked applications leave the menus through a `NoDisplay=true` copy in the user's
/// applications folder; nothing of the person's own is lost on the way.
final class BlockedMenuEntriesTests: XCTestCase {
    private struct Fixture {
        var user: URL
        var system: URL
        var menus: BlockedMenuEntries

        func catalog() -> ApplicationCatalog {
            ApplicationCatalog.load(dataDirectories: [user.path, system.path], locale: "en").catalog
        }
    }

    private func fixture() throws -> Fixture {
        let root = try makeTemporaryDirectory()
        let user = root.appendingPathComponent("home/applications")
        let system = root.appendingPathComponent("usr/applications")
        try FileManager.default.createDirectory(at: user, withIntermediateDirectories: true)
        try write(
            appEntry(
                name: "Tux Racer",
                extra: "Exec=tuxracer\nCategories=Game;\n[Desktop Action New]\nName=New\nNoDisplay=false\n"),
            "tuxracer.desktop", in: system)
        try write(appEntry(name: "Editor", extra: "Exec=editor\nNoDisplay=false\n"), "editor.desktop", in: system)
        return Fixture(
            user: user, system: system,
            menus: BlockedMenuEntries(
                applicationsDirectory: user, setAsideDirectory: root.appendingPathComponent("aside")))
    }

    func testABlockedEntryIsHiddenByACopyAndShownAgainWhenUnblocked() throws {
        let f = try fixture()
        let changes = f.menus.apply(blocked: ["tuxracer.desktop"], catalog: f.catalog())
        XCTAssertEqual(changes, .init(hidden: ["tuxracer.desktop"], shown: [], problems: []))
        let copy = try String(contentsOf: f.user.appendingPathComponent("tuxracer.desktop"), encoding: .utf8)
        XCTAssertTrue(
            copy.contains(
                """
                [Desktop Entry]
                NoDisplay=true
                X-Screenward-Blocked=true
                Type=Application
                Name=Tux Racer
                Exec=tuxracer
                """
            ), copy)
        XCTAssertTrue(
            copy.contains("[Desktop Action New]\nName=New\nNoDisplay=false"),
            "other groups are left as they were: \(copy)")
        // Screenward reads the copy as the entry it stands for: same id, same program,
        // shown as it was (so identity ranks it as before).
        let seen = try XCTUnwrap(f.catalog().entry(id: "tuxracer.desktop"))
        XCTAssertFalse(seen.noDisplay)
        XCTAssertEqual(seen.exec, "tuxracer")
        XCTAssertEqual(seen.path, f.user.appendingPathComponent("tuxracer.desktop"))
        XCTAssertEqual(f.menus.hiddenIDs(), ["tuxracer.desktop"])
        // Applying the same set again changes nothing.
        XCTAssertEqual(f.menus.apply(blocked: ["tuxracer.desktop"], catalog: f.catalog()), .init())

        XCTAssertEqual(
            f.menus.apply(blocked: [], catalog: f.catalog()),
            .init(hidden: [], shown: ["tuxracer.desktop"], problems: []))
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.user.appendingPathComponent("tuxracer.desktop").path))
        XCTAssertEqual(f.catalog().entry(id: "tuxracer.desktop")?.noDisplay, false)
    }

    func testThePersonsOwnEntryIsSetAsideAndPutBackAsItWas() throws {
        let f = try fixture()
        let own = appEntry(name: "My Editor", extra: "Exec=editor --mine\n# my comment\n")
        let ownFile = try write(own, "editor.desktop", in: f.user)
        XCTAssertEqual(f.menus.apply(blocked: ["editor.desktop"], catalog: f.catalog()).hidden, ["editor.desktop"])
        let copy = try String(contentsOf: ownFile, encoding: .utf8)
        XCTAssertTrue(
            copy.contains("NoDisplay=true") && copy.contains("Exec=editor --mine") && copy.contains("# my comment"),
            copy)

        XCTAssertEqual(f.menus.apply(blocked: [], catalog: f.catalog()).shown, ["editor.desktop"])
        XCTAssertEqual(
            try String(contentsOf: ownFile, encoding: .utf8), own, "the person's file is back, byte for byte")
    }

    func testFilesScreenwardDidNotWriteAreNeverRemoved() throws {
        let f = try fixture()
        let own = appEntry(name: "Hidden by me", extra: "NoDisplay=true\n")
        let file = try write(own, "mine.desktop", in: f.user)
        XCTAssertEqual(f.menus.apply(blocked: [], catalog: f.catalog()), .init())
        XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), own)
        XCTAssertEqual(f.menus.hiddenIDs(), [])
    }

    func testBlockedIDsFollowTokensAndBundleIdentifiers() throws {
        let f = try fixture()
        let minter = TokenMinter(secret: DeviceSecret(bytes: Array(repeating: 7, count: 32)))
        let catalog = f.catalog()
        let tux = AppIdentity(key: .desktopEntry("tuxracer.desktop"), displayName: "Tux Racer", categories: ["Game"])
        let stores = [
            StoreSettings(
                owner: "a", name: "x",
                application: .init(blockedApplications: [Application(token: minter.applicationToken(for: tux))])),
            StoreSettings(
                owner: "b", name: "y",
                application: .init(blockedApplications: [Application(bundleIdentifier: "editor.desktop")])),
        ]
        XCTAssertEqual(
            BlockedMenuEntries.blockedIDs(in: EffectiveShields(stores: stores), catalog: catalog, minter: minter),
            ["tuxracer.desktop", "editor.desktop"])
        XCTAssertEqual(
            BlockedMenuEntries.blockedIDs(in: EffectiveShields(stores: []), catalog: catalog, minter: minter), [])
    }

    func testAnEntrysOwnNoDisplayIsKeptForIdentity() throws {
        XCTAssertEqual(
            BlockedMenuEntries.hidden("[Desktop Entry]\nName=A\nNoDisplay=true\nExec=a\n"),
            "[Desktop Entry]\nNoDisplay=true\nX-Screenward-Blocked=true\nX-Screenward-NoDisplay=true\nName=A\nExec=a\n")
    }

    /// Hiding Mousepad's main entry must not make its settings entry (same program) the
    /// one its windows resolve to: the block would no longer apply.
    func testAHiddenMainEntryStaysTheOneItsWindowsResolveTo() throws {
        let f = try fixture()
        try write(
            appEntry(name: "Mousepad", extra: "Exec=mousepad %U\nStartupWMClass=Mousepad\n"),
            "org.xfce.mousepad.desktop", in: f.system)
        try write(
            appEntry(name: "Mousepad Settings", extra: "Exec=mousepad --preferences\nStartupWMClass=Mousepad\n"),
            "org.xfce.mousepad-settings.desktop", in: f.system)
        let facts = WindowFacts(
            windowID: 1, wmInstance: "mousepad", wmClass: "Mousepad", gtkApplicationID: nil, kdeDesktopFile: nil,
            title: "", pid: nil)
        XCTAssertEqual(
            AppResolver(catalog: f.catalog(), processes: ProcfsInspector()).resolve(facts).publicID,
            "org.xfce.mousepad.desktop")
        f.menus.apply(blocked: ["org.xfce.mousepad.desktop"], catalog: f.catalog())
        XCTAssertEqual(
            AppResolver(catalog: f.catalog(), processes: ProcfsInspector()).resolve(facts).publicID,
            "org.xfce.mousepad.desktop")
    }
}
