import Foundation
import ScreenwardCore
import XCTest

/// Processes as a test declares them.
struct FakeProcesses: ProcessInspector {
    var executables: [Int32: String] = [:]
    var flatpakIDs: [Int32: String] = [:]
    var environments: [Int32: [String: String]] = [:]
    var commandLines: [Int32: [String]] = [:]

    func executablePath(pid: Int32) -> String? { executables[pid] }
    func flatpakApplicationID(pid: Int32) -> String? { flatpakIDs[pid] }
    func environment(pid: Int32) -> [String: String]? { environments[pid] }
    func commandLine(pid: Int32) -> [String]? { commandLines[pid] }
}

final class AppResolverTests: XCTestCase {
    private let pid: Int32 = 4242

    private func entry(
        _ id: String, name: String? = nil, wmClass: String? = nil, exec: String? = nil, tryExec: String? = nil,
        noDisplay: Bool = false, file: String? = nil
    ) -> DesktopEntry {
        DesktopEntry(
            id: id, name: name ?? "Name of \(id)", iconName: "icon-\(id)", categories: ["Cat-\(id)"],
            startupWMClass: wmClass, exec: exec, tryExec: tryExec, noDisplay: noDisplay,
            path: URL(fileURLWithPath: "/nonexistent/applications/\(file ?? id)"))
    }

    private func resolve(
        _ facts: WindowFacts, _ entries: [DesktopEntry], processes: FakeProcesses = FakeProcesses(),
        searchPath: [String] = []
    ) -> AppIdentity {
        AppResolver(
            catalog: ApplicationCatalog(entries: entries, executableSearchPath: searchPath), processes: processes
        )
        .resolve(facts)
    }

    /// The key of the identity, as a string that is easy to compare.
    private func resolvedID(
        _ facts: WindowFacts, _ entries: [DesktopEntry], processes: FakeProcesses = FakeProcesses(),
        searchPath: [String] = []
    ) -> String {
        resolve(facts, entries, processes: processes, searchPath: searchPath).publicID
    }

    func testAMatchedEntryGivesItsIdNameIconAndCategories() {
        let identity = resolve(
            WindowFacts(windowID: 1, gtkApplicationID: "org.gnome.TextEditor"),
            [entry("org.gnome.TextEditor.desktop", name: "Text Editor")])
        XCTAssertEqual(
            identity,
            AppIdentity(
                key: .desktopEntry("org.gnome.TextEditor.desktop"), displayName: "Text Editor",
                iconName: "icon-org.gnome.TextEditor.desktop", categories: ["Cat-org.gnome.TextEditor.desktop"]))
    }

    func testGtkApplicationIDComesFirst() {
        let entries = [
            entry("org.gnome.TextEditor.desktop"), entry("org.kde.kate.desktop"),
            entry("wmclass.desktop", wmClass: "gnome-text-editor"), entry("gnome-text-editor.desktop"),
        ]
        let facts = WindowFacts(
            windowID: 1, wmInstance: "gnome-text-editor", wmClass: "Gnome-text-editor",
            gtkApplicationID: "org.gnome.TextEditor", kdeDesktopFile: "org.kde.kate")
        XCTAssertEqual(resolvedID(facts, entries), "org.gnome.TextEditor.desktop")

        var unknownApp = facts
        unknownApp.gtkApplicationID = "org.example.NotInstalled"
        XCTAssertEqual(resolvedID(unknownApp, entries), "org.kde.kate.desktop", "an unknown id falls through")
    }

    func testKdeDesktopFileComesBeforeWindowClasses() {
        let entries = [
            entry("org.kde.dolphin.desktop"), entry("wmclass.desktop", wmClass: "dolphin"), entry("dolphin.desktop"),
        ]
        let facts = WindowFacts(
            windowID: 1, wmInstance: "dolphin", wmClass: "dolphin", kdeDesktopFile: "org.kde.dolphin")
        XCTAssertEqual(resolvedID(facts, entries), "org.kde.dolphin.desktop")

        var withSuffix = facts
        withSuffix.kdeDesktopFile = "/usr/share/applications/org.kde.dolphin.desktop"
        XCTAssertEqual(resolvedID(withSuffix, entries), "org.kde.dolphin.desktop")
    }

    func testStartupWMClassMatchesTheInstanceThenTheClass() {
        let entries = [
            entry("chrome-app.desktop", wmClass: "crx_abcdef"), entry("chrome.desktop", wmClass: "Google-chrome"),
            entry("crx_abcdef.desktop"),
        ]
        XCTAssertEqual(
            resolvedID(WindowFacts(windowID: 1, wmInstance: "crx_abcdef", wmClass: "Google-chrome"), entries),
            "chrome-app.desktop")
        XCTAssertEqual(
            resolvedID(WindowFacts(windowID: 1, wmInstance: "google-chrome", wmClass: "GOOGLE-CHROME"), entries),
            "chrome.desktop", "the class matches ignoring case")
    }

    func testStartupWMClassComesBeforeDesktopFileNames() {
        let entries = [entry("foo.desktop"), entry("claims-foo.desktop", wmClass: "foo")]
        XCTAssertEqual(
            resolvedID(WindowFacts(windowID: 1, wmInstance: "x", wmClass: "foo"), entries), "claims-foo.desktop")
    }

    func testDesktopFileNamedAfterTheInstanceThenTheClass() {
        let firefox = entry("firefox.desktop")
        let navigator = entry("Navigator.desktop")
        let facts = WindowFacts(windowID: 1, wmInstance: "Navigator", wmClass: "Firefox")
        XCTAssertEqual(resolvedID(facts, [firefox, navigator]), "Navigator.desktop")
        XCTAssertEqual(resolvedID(facts, [firefox]), "firefox.desktop", "the class, lowercased")

        let spaced = WindowFacts(windowID: 1, wmInstance: "x", wmClass: "Foo Bar")
        XCTAssertEqual(resolvedID(spaced, [entry("foo-bar.desktop")]), "foo-bar.desktop")
        XCTAssertEqual(
            resolvedID(spaced, [entry("foo-bar.desktop"), entry("Foo Bar.desktop")]), "Foo Bar.desktop",
            "the exact name comes before the normalized one")

        let both = WindowFacts(windowID: 1, wmInstance: "Term", wmClass: "term-class")
        XCTAssertEqual(
            resolvedID(both, [entry("term-class.desktop"), entry("term.desktop")]), "term.desktop",
            "the normalized instance comes before the class")
    }

    func testFlatpakApplicationID() {
        let processes = FakeProcesses(
            executables: [pid: "/app/bin/tool"], flatpakIDs: [pid: "org.example.Tool"],
            environments: [pid: ["SNAP_NAME": "tool"]])
        let entries = [
            entry("org.example.Tool.desktop"), entry("tool_tool.desktop"), entry("exec.desktop", exec: "/app/bin/tool"),
        ]
        let facts = WindowFacts(windowID: 1, wmInstance: "tool", wmClass: "Tool", pid: pid)
        XCTAssertEqual(resolvedID(facts, entries, processes: processes), "org.example.Tool.desktop")

        var otherWindow = facts
        otherWindow.wmClass = "org.example.Tool"
        XCTAssertEqual(
            resolvedID(
                otherWindow, entries + [entry("alias.desktop", wmClass: "org.example.Tool")], processes: processes),
            "alias.desktop", "window hints come before the process")
    }

    func testSnapFromTheEnvironment() {
        let exe = "/snap/spotify/80/usr/share/spotify/spotify"
        func processes(_ environment: [String: String], exe: String = exe) -> FakeProcesses {
            FakeProcesses(executables: [pid: exe], environments: [pid: environment])
        }
        let facts = WindowFacts(windowID: 1, wmInstance: "spotify-app", wmClass: "Spotify-app", pid: pid)
        let entries = [
            entry("spotify_helper.desktop"), entry("spotify_spotify.desktop"), entry("foo_foo.desktop"),
            entry("foo+beta_foo.desktop"), entry("tools_beta.desktop"), entry("tools_alpha.desktop"),
        ]

        XCTAssertEqual(
            resolvedID(facts, entries, processes: processes(["SNAP_NAME": "spotify"])),
            "spotify_spotify.desktop", "the app named like the snap is the main one")
        XCTAssertEqual(
            resolvedID(facts, entries, processes: processes(["SNAP_NAME": "tools"])),
            "tools_alpha.desktop", "else the smallest id of the snap")
        XCTAssertEqual(
            resolvedID(facts, entries, processes: processes(["SNAP_NAME": "foo", "SNAP_INSTANCE_NAME": "foo_beta"])),
            "foo+beta_foo.desktop", "a parallel install has its own entries")
        XCTAssertEqual(
            resolvedID(facts, entries, processes: processes(["SNAP_NAME": "spotify"], exe: "/usr/bin/gedit")),
            "wmclass:Spotify-app", "a program outside /snap only inherited the variables")
        XCTAssertEqual(resolvedID(facts, entries, processes: processes(["SNAP_NAME": "absent"])), "wmclass:Spotify-app")
    }

    func testAppImageFromTheEnvironment() {
        let processes = FakeProcesses(
            executables: [pid: "/tmp/.mount_FooAbc/usr/bin/foo"],
            environments: [pid: ["APPIMAGE": "/nonexistent/Apps/Foo.AppImage"]])
        let entries = [
            entry("appimagekit-foo.desktop", exec: #""/nonexistent/Apps/Foo.AppImage" %U"#),
            entry("bar.desktop", exec: "/nonexistent/Apps/Bar.AppImage"),
        ]
        let facts = WindowFacts(windowID: 1, wmInstance: "foo", wmClass: "FooApp", pid: pid)
        XCTAssertEqual(resolvedID(facts, entries, processes: processes), "appimagekit-foo.desktop")
        XCTAssertEqual(resolvedID(facts, [entries[1]], processes: processes), "wmclass:FooApp")
    }

    func testExecAndTryExecAgainstTheExecutable() {
        let facts = WindowFacts(windowID: 1, wmInstance: "main", wmClass: "Main", pid: pid)
        let processes = FakeProcesses(executables: [pid: "/nonexistent/lib/tool/tool-bin"])
        XCTAssertEqual(
            resolvedID(
                facts, [entry("tool.desktop", exec: "/nonexistent/lib/tool/tool-bin --new %U")],
                processes: processes),
            "tool.desktop")
        XCTAssertEqual(
            resolvedID(
                facts, [entry("tool.desktop", exec: "tool-launcher", tryExec: "/nonexistent/lib/tool/tool-bin")],
                processes: processes),
            "tool.desktop")
        XCTAssertEqual(
            resolvedID(
                facts,
                [
                    entry("writer.desktop", exec: "/nonexistent/lib/tool/tool-bin --writer"),
                    entry("calc.desktop", exec: "/nonexistent/lib/tool/tool-bin --calc"),
                ],
                processes: processes),
            "wmclass:Main", "a program several entries run does not say which")
        let python = FakeProcesses(executables: [pid: "/nonexistent/bin/python3.12"])
        XCTAssertEqual(
            resolvedID(
                facts, [entry("script.desktop", exec: "/nonexistent/bin/python3.12 /opt/script.py")],
                processes: python),
            "wmclass:Main", "an interpreter runs many apps")
    }

    func testTheCommandLineTellsApartEntriesRunningOneProgram() {
        let facts = WindowFacts(windowID: 1, wmInstance: "main", wmClass: "Main", pid: pid)
        let entries = [
            entry("writer.desktop", exec: "/nonexistent/lib/tool/tool-bin --writer %U"),
            entry("calc.desktop", exec: "/nonexistent/lib/tool/tool-bin --calc %U"),
        ]
        func processes(_ arguments: [String]) -> FakeProcesses {
            FakeProcesses(executables: [pid: "/nonexistent/lib/tool/tool-bin"], commandLines: [pid: arguments])
        }
        XCTAssertEqual(
            resolvedID(facts, entries, processes: processes(["tool-bin", "--writer", "--splash-pipe=6"])),
            "writer.desktop")
        XCTAssertEqual(resolvedID(facts, entries, processes: processes(["tool-bin", "--calc"])), "calc.desktop")
        XCTAssertEqual(
            resolvedID(facts, entries, processes: processes(["tool-bin"])), "wmclass:Main",
            "neither was asked for: no guess")
        XCTAssertEqual(
            resolvedID(
                facts, entries + [entry("tool.desktop", exec: "/nonexistent/lib/tool/tool-bin %U")],
                processes: processes(["tool-bin"])),
            "tool.desktop", "the entry that adds nothing is the main one")
        let named = [
            entry("suite-w.desktop", name: "Writer", exec: "/nonexistent/lib/tool/tool-bin --writer %U"),
            entry("suite-c.desktop", name: "Calc", exec: "/nonexistent/lib/tool/tool-bin --calc %U"),
        ]
        XCTAssertEqual(
            resolvedID(
                WindowFacts(windowID: 1, wmInstance: "x", wmClass: "Writer", pid: pid), named,
                processes: FakeProcesses(executables: [pid: "/nonexistent/lib/tool/tool-bin"])),
            "suite-w.desktop", "without a command line, the entry named like the window")
    }

    func testIdsStandingForTheWindowName() {
        let facts = WindowFacts(windowID: 1, wmInstance: "foo", wmClass: "Foo")
        XCTAssertEqual(resolvedID(facts, [entry("org.example.Foo.desktop")]), "org.example.Foo.desktop")
        XCTAssertEqual(resolvedID(facts, [entry("gnome-foo.desktop")]), "gnome-foo.desktop")
        XCTAssertEqual(resolvedID(facts, [entry("kde4-foo.desktop", file: "kde4/foo.desktop")]), "kde4-foo.desktop")
        XCTAssertEqual(
            resolvedID(facts, [entry("org.example.foobar.desktop"), entry("acme-foo.desktop")]), "wmclass:Foo",
            "a longer name or an unknown vendor is another application")
        XCTAssertEqual(
            resolvedID(
                facts,
                [
                    entry("io.foo.desktop", noDisplay: true), entry("net.example.Foo.desktop"),
                    entry("com.example.foo.desktop"),
                ]),
            "com.example.foo.desktop", "the shown entries, then the smallest id")
        XCTAssertEqual(
            resolvedID(facts, [entry("com.example.foo.desktop"), entry("net.foo.desktop")]), "net.foo.desktop",
            "the shortest id first")
        XCTAssertEqual(
            resolvedID(WindowFacts(windowID: 1, wmInstance: "11", wmClass: "11"), [entry("python3.11.desktop")]),
            "wmclass:11", "a version number is not a name")
        XCTAssertEqual(
            resolvedID(facts, [entry("org.example.foo.desktop"), entry("foo-launcher.desktop", wmClass: "Foo")]),
            "foo-launcher.desktop", "StartupWMClass comes first")
    }

    func testEntriesHiddenFromMenusStillOwnWindows() {
        let entries = [entry("daemon-ui.desktop", wmClass: "DaemonUI", noDisplay: true)]
        XCTAssertEqual(resolvedID(WindowFacts(windowID: 1, wmClass: "DaemonUI"), entries), "daemon-ui.desktop")
    }

    func testFallsBackToTheWindowClass() {
        let identity = resolve(
            WindowFacts(windowID: 1, wmInstance: "xterm", wmClass: "XTerm", pid: pid), [entry("other.desktop")],
            processes: FakeProcesses(executables: [pid: "/usr/bin/xterm"]))
        XCTAssertEqual(identity, AppIdentity(key: .windowClass("XTerm"), displayName: "XTerm"))
    }

    func testWithoutAClassFallsBackToTheExecutable() {
        let identity = resolve(
            WindowFacts(windowID: 1, wmInstance: "", wmClass: "", title: "Some window", pid: pid), [],
            processes: FakeProcesses(executables: [pid: "/opt/vendor/bin/some-tool"]))
        XCTAssertEqual(identity, AppIdentity(key: .executable("/opt/vendor/bin/some-tool"), displayName: "some-tool"))
    }

    func testWithNothingTheWindowIsUnidentified() {
        let unidentified = AppIdentity(key: .windowClass("unidentified"), displayName: "Unidentified window")
        XCTAssertEqual(resolve(WindowFacts(windowID: 1), [entry("x.desktop")]), unidentified)
        XCTAssertEqual(
            resolve(WindowFacts(windowID: 1, gtkApplicationID: "", kdeDesktopFile: "", pid: pid), [entry(".desktop")]),
            unidentified, "empty hints and a vanished process tell nothing")
    }
}
