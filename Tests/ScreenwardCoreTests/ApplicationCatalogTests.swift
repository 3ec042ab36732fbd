import Foundation
import XCTest

@testable import ScreenwardBasics
@testable import ScreenwardCore

final class ApplicationCatalogTests: XCTestCase {
    private var user: URL!
    private var system: URL!

    override func setUpWithError() throws {
        let root = try makeTemporaryDirectory()
        user = root.appendingPathComponent("home/applications")
        system = root.appendingPathComponent("usr/applications")
    }

    private func load(locale: String = "C", searchPath: [String] = []) -> (ApplicationCatalog, [String]) {
        let result = ApplicationCatalog.load(
            dataDirectories: [user.path, system.path], locale: locale, executableSearchPath: searchPath)
        return (result.catalog, result.problems)
    }

    func testTheFirstDirectoryWithAnIdWins() throws {
        try write(appEntry(name: "User Editor"), "editor.desktop", in: user)
        try write(appEntry(name: "System Editor"), "editor.desktop", in: system)
        try write(appEntry(name: "System Only"), "other.desktop", in: system)
        let (catalog, problems) = load()
        XCTAssertEqual(problems, [])
        XCTAssertEqual(catalog.entry(id: "editor.desktop")?.name, "User Editor")
        XCTAssertEqual(
            catalog.entry(id: "editor.desktop")?.path.path, user.appendingPathComponent("editor.desktop").path)
        XCTAssertEqual(catalog.entry(id: "other.desktop")?.name, "System Only")
        XCTAssertEqual(catalog.entries.map(\.id), ["editor.desktop", "other.desktop"])
    }

    func testHiddenOrNonApplicationEntriesMaskLowerOnes() throws {
        try write("[Desktop Entry]\nHidden=true\n", "hidden.desktop", in: user)
        try write(appEntry(name: "Masked"), "hidden.desktop", in: system)
        try write("[Desktop Entry]\nType=Link\nName=Link\nURL=https://example.org\n", "link.desktop", in: user)
        try write(appEntry(name: "Masked too"), "link.desktop", in: system)
        try write(appEntry(name: "Visible"), "visible.desktop", in: system)
        let (catalog, problems) = load()
        XCTAssertEqual(problems, [])
        XCTAssertNil(catalog.entry(id: "hidden.desktop"))
        XCTAssertNil(catalog.entry(id: "link.desktop"))
        XCTAssertEqual(catalog.entries.map(\.id), ["visible.desktop"])
    }

    func testBrokenFilesBecomeProblemsAndDoNotMask() throws {
        let broken = try write("Name=No group\n", "editor.desktop", in: user)
        try write(appEntry(name: "System Editor"), "editor.desktop", in: system)
        let nameless = try write("[Desktop Entry]\nType=Application\n", "nameless.desktop", in: system)
        try write(Data(repeating: 0x41, count: 2 * 1024 * 1024), "huge.desktop", in: system)
        try write(appEntry(name: "Fine"), "fine.desktop", in: system)
        let (catalog, problems) = load()
        XCTAssertEqual(catalog.entry(id: "editor.desktop")?.name, "System Editor")
        XCTAssertEqual(catalog.entries.map(\.id), ["editor.desktop", "fine.desktop"])
        XCTAssertEqual(problems.count, 3, "\(problems)")
        XCTAssertTrue(problems.contains("\(broken.path):1: no [Desktop Entry] group"), "\(problems)")
        XCTAssertTrue(problems.contains("\(nameless.path):1: the [Desktop Entry] group has no Name"), "\(problems)")
        XCTAssertTrue(problems.contains { $0.contains("huge.desktop") && $0.contains("larger than") }, "\(problems)")
    }

    func testSubdirectoriesBecomeDashesInTheId() throws {
        try write(appEntry(name: "KDE 4 Foo"), "kde4/foo.desktop", in: system)
        try write(appEntry(name: "Deep"), "a/b/c.desktop", in: system)
        try write("not an entry", "notes.txt", in: system)
        try write("also not", "mimeinfo.cache", in: system)
        let (catalog, problems) = load()
        XCTAssertEqual(problems, [])
        XCTAssertEqual(catalog.entries.map(\.id), ["a-b-c.desktop", "kde4-foo.desktop"])
        XCTAssertEqual(catalog.entry(id: "kde4-foo.desktop")?.name, "KDE 4 Foo")
    }

    func testMissingDirectoriesAreNormal() {
        let (catalog, problems) = load()
        XCTAssertEqual(problems, [])
        XCTAssertEqual(catalog.entries, [])
    }

    func testNamesAreLocalized() throws {
        try write(appEntry(name: "Files", extra: "Name[de]=Dateien\n"), "files.desktop", in: system)
        XCTAssertEqual(load(locale: "de_AT.UTF-8").0.entry(id: "files.desktop")?.name, "Dateien")
        XCTAssertEqual(load(locale: "C").0.entry(id: "files.desktop")?.name, "Files")
    }

    func testDirectoriesFromTheEnvironment() {
        let directories = ApplicationCatalog.applicationDirectories
        XCTAssertEqual(
            directories(["HOME": "/home/ada"]),
            ["/home/ada/.local/share/applications", "/usr/local/share/applications", "/usr/share/applications"])
        XCTAssertEqual(
            directories(["HOME": "/home/ada", "XDG_DATA_HOME": "", "XDG_DATA_DIRS": ""]),
            ["/home/ada/.local/share/applications", "/usr/local/share/applications", "/usr/share/applications"])
        XCTAssertEqual(
            directories(["HOME": "/home/ada", "XDG_DATA_HOME": "/data/", "XDG_DATA_DIRS": "/a:relative::/b:/a/"]),
            ["/data/applications", "/a/applications", "/b/applications"])
        XCTAssertEqual(directories([:]), ["/usr/local/share/applications", "/usr/share/applications"])
    }

    func testLoadFromEnvironment() throws {
        let root = user.deletingLastPathComponent().deletingLastPathComponent()
        let bin = root.appendingPathComponent("bin")
        let tool = try write("#!/bin/sh\n", "tool", in: bin)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: tool.path)
        try write(appEntry(name: "Tool", extra: "Name[fr]=Outil\nExec=tool %U\n"), "tool.desktop", in: user)
        try write(appEntry(name: "Shadowed"), "tool.desktop", in: system)
        try write(appEntry(name: "Other"), "other.desktop", in: system)

        let (catalog, problems) = ApplicationCatalog.loadFromEnvironment([
            "HOME": "/nonexistent", "XDG_DATA_HOME": user.deletingLastPathComponent().path,
            "XDG_DATA_DIRS": system.deletingLastPathComponent().path,
            "LC_MESSAGES": "fr_FR.UTF-8", "PATH": "/nonexistent/bin:\(bin.path)",
        ])
        XCTAssertEqual(problems, [])
        XCTAssertEqual(catalog.entries.map(\.name), ["Other", "Outil"])
        XCTAssertEqual(catalog.entries(executablePath: tool.path).map(\.id), ["tool.desktop"])
    }

    func testStartupWMClassLookupIgnoresCaseButPrefersAnExactMatch() throws {
        let path = URL(fileURLWithPath: "/x.desktop")
        let catalog = ApplicationCatalog(entries: [
            DesktopEntry(id: "b.desktop", name: "B", startupWMClass: "foo", path: path),
            DesktopEntry(id: "a.desktop", name: "A", startupWMClass: "Foo", path: path),
            DesktopEntry(id: "c.desktop", name: "C", path: path),
        ])
        XCTAssertEqual(catalog.entry(startupWMClass: "foo")?.id, "b.desktop")
        XCTAssertEqual(catalog.entry(startupWMClass: "Foo")?.id, "a.desktop")
        XCTAssertEqual(catalog.entry(startupWMClass: "FOO")?.id, "a.desktop", "no exact match: the smallest id")
        XCTAssertNil(catalog.entry(startupWMClass: "bar"))
    }

    func testExecutableIndexFollowsPathAndSymlinks() throws {
        let root = try makeTemporaryDirectory()
        let bin = root.appendingPathComponent("bin")
        let real = try write("#!/bin/sh\n", "lib/app/app-bin", in: root)
        let python = try write("#!/bin/sh\n", "bin/python3", in: root)
        for file in [real, python] {
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file.path)
        }
        let notExecutable = try write("", "bin/plain", in: root)
        try FileManager.default.createSymbolicLink(
            at: bin.appendingPathComponent("app"), withDestinationURL: real)
        let dir = URL(fileURLWithPath: "/x.desktop")
        let catalog = ApplicationCatalog(
            entries: [
                DesktopEntry(id: "bare.desktop", name: "Bare", exec: "app %U", path: dir),
                DesktopEntry(id: "env.desktop", name: "Env", exec: "env A=1 B=2 \(real.path) --x", path: dir),
                DesktopEntry(id: "quoted.desktop", name: "Quoted", exec: #""/nonexistent/My App/run" %F"#, path: dir),
                DesktopEntry(
                    id: "tryexec.desktop", name: "TryExec", exec: "launcher", tryExec: "/nonexistent/real-binary",
                    path: dir),
                DesktopEntry(id: "script.desktop", name: "Script", exec: "python3 /opt/tool.py", path: dir),
                DesktopEntry(id: "plain.desktop", name: "Plain", exec: "plain", path: dir),
                DesktopEntry(id: "unknown.desktop", name: "Unknown", exec: "not-on-path", path: dir),
            ],
            executableSearchPath: ["/nonexistent", bin.path])

        XCTAssertEqual(catalog.entries(executablePath: real.path).map(\.id), ["bare.desktop", "env.desktop"])
        XCTAssertEqual(
            catalog.entries(executablePath: bin.appendingPathComponent("app").path).map(\.id),
            ["bare.desktop", "env.desktop"], "the queried path is canonicalized too")
        XCTAssertEqual(catalog.entries(executablePath: "/nonexistent/My App/run").map(\.id), ["quoted.desktop"])
        XCTAssertEqual(catalog.entries(executablePath: "/nonexistent/real-binary").map(\.id), ["tryexec.desktop"])
        XCTAssertEqual(catalog.entries(executablePath: python.path), [], "interpreters claim no windows")
        XCTAssertEqual(catalog.entries(execProgram: python.path).map(\.id), ["script.desktop"])
        XCTAssertEqual(catalog.entries(executablePath: notExecutable.path), [], "PATH only finds executables")
        XCTAssertEqual(catalog.entries(executablePath: "/nonexistent/not-on-path"), [])
    }

    func testFindsTheProgramOfAnExecLine() {
        let cases: [(exec: String, program: String?)] = [
            ("firefox %u", "firefox"),
            ("  /usr/bin/gimp-2.10 %U", "/usr/bin/gimp-2.10"),
            (#""/opt/My App/bin/app" --flag %F"#, "/opt/My App/bin/app"),
            (#""/opt/say \"hi\"/app""#, #"/opt/say "hi"/app"#),
            ("'/opt/single quoted/app' x", "/opt/single quoted/app"),
            (#"/opt/back\ slash/app"#, "/opt/back slash/app"),
            ("env GTK_THEME=Adwaita:dark LANG=C /usr/bin/foo %U", "/usr/bin/foo"),
            ("/usr/bin/env -i BAR=1 bar", "bar"),
            ("env", nil),
            ("", nil),
        ]
        for (exec, program) in cases {
            XCTAssertEqual(ExecCommand.program(of: exec), program, exec)
        }
    }

    func testEntriesStandingForAName() throws {
        try write(appEntry(name: "Mousepad"), "org.xfce.mousepad.desktop", in: system)
        try write(appEntry(name: "Settings"), "org.xfce.mousepad-settings.desktop", in: system)
        try write(appEntry(name: "XTerm"), "debian-xterm.desktop", in: system)
        try write(appEntry(name: "Notepad"), "wine/Programs/Notepad.desktop", in: user)
        try write(appEntry(name: "Python"), "python3.11.desktop", in: system)
        let (catalog, problems) = load()
        XCTAssertEqual(problems, [])
        XCTAssertEqual(catalog.entries(standingFor: "mousepad").map(\.id), ["org.xfce.mousepad.desktop"])
        XCTAssertEqual(
            catalog.entries(standingFor: "Mousepad-Settings").map(\.id), ["org.xfce.mousepad-settings.desktop"])
        XCTAssertEqual(catalog.entries(standingFor: "xterm").map(\.id), ["debian-xterm.desktop"])
        XCTAssertEqual(catalog.entries(standingFor: "notepad").map(\.id), ["wine-Programs-Notepad.desktop"])
        XCTAssertEqual(
            catalog.entries(standingFor: "python3.11").map(\.id), ["python3.11.desktop"], "the whole id, ignoring case")
        XCTAssertEqual(catalog.entries(standingFor: "11"), [])
        XCTAssertEqual(catalog.entries(standingFor: "xfce"), [])
    }

    func testLaunchArgumentsLeaveOutFieldCodes() {
        let cases: [(exec: String, arguments: [String])] = [
            ("mousepad %U", []),
            ("mousepad --preferences", ["--preferences"]),
            ("libreoffice --writer %U", ["--writer"]),
            (#"env A=1 "/opt/My App/app" --open-url %u --file=%f -x"#, ["--open-url", "-x"]),
            ("app %i %c %k --name", ["--name"]),
            ("app 100%", ["100%"]),
            ("", []),
        ]
        for (exec, arguments) in cases {
            XCTAssertEqual(ExecCommand.launchArguments(of: exec), arguments, exec)
        }
    }
}
