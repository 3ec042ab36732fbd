import Foundation
import ScreenwardCore
import XCTest

/// Identity of the windows real applications make, with the property values, process
/// facts and desktop entries observed on Debian 12 (xprop under Xvfb and openbox,
/// /proc, /usr/share/applications), unless a test says otherwise. Without a session
/// bus (as under a bare Xvfb) GTK does not set `_GTK_APPLICATION_ID`, so both cases
/// are checked where it matters.
final class RealApplicationIdentityTests: XCTestCase {
    private let pid: Int32 = 4242

    private func entry(
        _ id: String, name: String, exec: String?, wmClass: String? = nil, noDisplay: Bool = false,
        file: String? = nil
    ) -> DesktopEntry {
        DesktopEntry(
            id: id, name: name, startupWMClass: wmClass, exec: exec, noDisplay: noDisplay,
            path: URL(fileURLWithPath: "/nonexistent/applications/\(file ?? id)"))
    }

    /// A window of `pid` with these WM_CLASS and other hints.
    private func window(
        _ instance: String, _ wmClass: String, gtkApplicationID: String? = nil, pid: Int32? = 4242
    ) -> WindowFacts {
        WindowFacts(windowID: 1, wmInstance: instance, wmClass: wmClass, gtkApplicationID: gtkApplicationID, pid: pid)
    }

    private func resolvedID(
        _ facts: WindowFacts, _ entries: [DesktopEntry], executable: String? = nil, commandLine: [String]? = nil,
        searchPath: [String] = []
    ) -> String {
        var processes = FakeProcesses()
        processes.executables[pid] = executable
        processes.commandLines[pid] = commandLine
        let catalog = ApplicationCatalog(entries: entries, executableSearchPath: searchPath)
        return AppResolver(catalog: catalog, processes: processes).resolve(facts).publicID
    }

    /// A directory on the search path with these programs in it, as /usr/bin would be.
    private func programs(_ names: [String]) throws -> URL {
        let bin = try makeTemporaryDirectory()
        for name in names {
            let file = try write("#!/bin/sh\n", name, in: bin)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file.path)
        }
        return bin.resolvingSymlinksInPath()
    }

    // MARK: GTK 3: Mousepad

    private var mousepadEntries: [DesktopEntry] {
        [
            entry("org.xfce.mousepad.desktop", name: "Mousepad", exec: "mousepad %U"),
            entry("org.xfce.mousepad-settings.desktop", name: "Text Editor Settings", exec: "mousepad --preferences"),
        ]
    }

    func testMousepadIsItsMenuEntryWithOrWithoutItsApplicationID() throws {
        let bin = try programs(["mousepad"])
        let exe = bin.appendingPathComponent("mousepad").path
        let plain = window("mousepad", "Mousepad")
        XCTAssertEqual(
            resolvedID(plain, mousepadEntries, executable: exe, commandLine: ["mousepad"], searchPath: [bin.path]),
            "org.xfce.mousepad.desktop", "both entries run mousepad; the settings entry's argument was not given")
        XCTAssertEqual(
            resolvedID(plain, mousepadEntries, executable: exe, searchPath: [bin.path]),
            "org.xfce.mousepad.desktop", "without the command line, the entry that adds no argument")
        XCTAssertEqual(
            resolvedID(
                plain, mousepadEntries, executable: exe, commandLine: ["mousepad", "--preferences"],
                searchPath: [bin.path]),
            "org.xfce.mousepad-settings.desktop", "started as the settings entry says")
        XCTAssertEqual(
            resolvedID(window("mousepad", "Mousepad", pid: nil), mousepadEntries), "org.xfce.mousepad.desktop",
            "with no process at all, the reverse-DNS id that stands for the window's name")
        XCTAssertEqual(
            resolvedID(window("mousepad", "Mousepad", gtkApplicationID: "org.xfce.mousepad"), mousepadEntries),
            "org.xfce.mousepad.desktop", "with a session bus GTK names the application")
    }

    // MARK: GTK 4: GNOME Text Editor

    func testGnomeTextEditorByItsProgramOrItsApplicationID() throws {
        let bin = try programs(["gnome-text-editor"])
        let entries = [entry("org.gnome.TextEditor.desktop", name: "Text Editor", exec: "gnome-text-editor %U")]
        XCTAssertEqual(
            resolvedID(
                window("gnome-text-editor", "gnome-text-editor"), entries,
                executable: bin.appendingPathComponent("gnome-text-editor").path, commandLine: ["gnome-text-editor"],
                searchPath: [bin.path]),
            "org.gnome.TextEditor.desktop")
        XCTAssertEqual(
            resolvedID(
                window("gnome-text-editor", "gnome-text-editor", gtkApplicationID: "org.gnome.TextEditor"), entries),
            "org.gnome.TextEditor.desktop")
    }

    // MARK: X toolkit, SDL 2, Qt 5

    func testXTermByStartupWMClassOrItsVendorPrefix() {
        let entries = [
            entry("debian-uxterm.desktop", name: "UXTerm", exec: "uxterm", wmClass: "UXTerm"),
            entry("debian-xterm.desktop", name: "XTerm", exec: "xterm", wmClass: "XTerm"),
        ]
        XCTAssertEqual(
            resolvedID(window("xterm", "XTerm"), entries, executable: "/usr/bin/xterm"), "debian-xterm.desktop")
        XCTAssertEqual(
            resolvedID(window("xterm", "UXTerm"), entries, executable: "/usr/bin/xterm"), "debian-uxterm.desktop",
            "uxterm's window keeps xterm's instance: an exact StartupWMClass match comes first")
        let withoutClasses = entries.map {
            var entry = $0
            entry.startupWMClass = nil
            return entry
        }
        XCTAssertEqual(
            resolvedID(window("xterm", "XTerm"), withoutClasses, executable: "/usr/bin/xterm"), "debian-xterm.desktop",
            "Debian's vendor prefix, as GNOME Shell strips it")
    }

    func testSDLGameAndQtProgramByTheirNames() {
        // sopwith runs from /usr/games, which is not on every PATH: its name is enough.
        XCTAssertEqual(
            resolvedID(
                window("sopwith", "sopwith"), [entry("sopwith.desktop", name: "Sopwith", exec: "sopwith")],
                executable: "/usr/games/sopwith", commandLine: ["/usr/games/sopwith"]),
            "sopwith.desktop")
        XCTAssertEqual(
            resolvedID(
                window("featherpad", "FeatherPad"),
                [entry("featherpad.desktop", name: "FeatherPad", exec: "featherpad %U")],
                executable: "/usr/bin/featherpad"),
            "featherpad.desktop")
    }

    // MARK: Browsers, office

    func testFirefoxAndChromiumByStartupWMClass() {
        let entries = [
            entry(
                "firefox-esr.desktop", name: "Firefox ESR", exec: "/usr/lib/firefox-esr/firefox-esr %u",
                wmClass: "firefox-esr"),
            entry("chromium.desktop", name: "Chromium Web Browser", exec: "/usr/bin/chromium %U", wmClass: "chromium"),
        ]
        XCTAssertEqual(
            resolvedID(window("Navigator", "firefox-esr"), entries, executable: "/usr/lib/firefox-esr/firefox-esr"),
            "firefox-esr.desktop")
        XCTAssertEqual(
            resolvedID(window("chromium", "Chromium"), entries, executable: "/usr/lib/chromium/chromium"),
            "chromium.desktop")
    }

    func testLibreOfficeComponentsByTheirClass() {
        let entries = [
            entry(
                "libreoffice-calc.desktop", name: "LibreOffice Calc", exec: "libreoffice --calc %U",
                wmClass: "libreoffice-calc"),
            entry(
                "libreoffice-startcenter.desktop", name: "LibreOffice Start Center", exec: "libreoffice %U",
                wmClass: "libreoffice-startcenter"),
            entry(
                "libreoffice-writer.desktop", name: "LibreOffice Writer", exec: "libreoffice --writer %U",
                wmClass: "libreoffice-writer"),
            entry(
                "libreoffice-xsltfilter.desktop", name: "LibreOffice XSLT based filters", exec: "libreoffice %U",
                noDisplay: true),
        ]
        let exe = "/usr/lib/libreoffice/program/soffice.bin"
        XCTAssertEqual(
            resolvedID(
                window("libreoffice", "libreoffice-writer"), entries, executable: exe,
                commandLine: [exe, "--writer", "--splash-pipe=6"]),
            "libreoffice-writer.desktop")
        XCTAssertEqual(
            resolvedID(
                window("libreoffice", "libreoffice-startcenter"), entries, executable: exe,
                commandLine: [exe, "--splash-pipe=6"]),
            "libreoffice-startcenter.desktop")
    }

    // MARK: Electron

    /// Debian 12 packages no Electron application; these are VS Code's entries as its
    /// own package installs them (microsoft/vscode resources/linux), with the window
    /// Electron makes from the app's name. Older releases also put StartupWMClass=Code
    /// in the hidden URL handler.
    func testVSCodeIsItsShownEntryNotItsHiddenURLHandler() {
        let exe = "/usr/share/code/code"
        var entries = [
            entry("code.desktop", name: "Visual Studio Code", exec: "\(exe) %F", wmClass: "Code"),
            entry(
                "code-url-handler.desktop", name: "Visual Studio Code - URL Handler", exec: "\(exe) --open-url %U",
                noDisplay: true),
        ]
        let code = window("code", "Code")
        XCTAssertEqual(resolvedID(code, entries, executable: exe), "code.desktop")
        entries[1].startupWMClass = "Code"
        XCTAssertEqual(
            resolvedID(code, entries, executable: exe), "code.desktop", "shown before hidden, whatever the id order")
        XCTAssertEqual(
            resolvedID(code, entries, executable: exe, commandLine: [exe, "--open-url", "vscode://file/x"]),
            "code.desktop", "opened through the URL handler, the window is still the editor a person sees")
        entries = entries.map {
            var entry = $0
            entry.startupWMClass = nil
            return entry
        }
        XCTAssertEqual(
            resolvedID(code, entries, executable: exe, commandLine: [exe]), "code.desktop",
            "by the program both run: the shown entry that adds no argument")
    }

    // MARK: Java

    private let java = "/usr/lib/jvm/java-17-openjdk-amd64/bin/java"

    func testJavaWindowsAreNamedAfterTheMainClass() {
        let entries = [entry("jedit.desktop", name: "jEdit", exec: "jedit %U", wmClass: "jedit")]
        XCTAssertEqual(
            resolvedID(
                window("org-gjt-sp-jedit-jEdit", "org-gjt-sp-jedit-jEdit"), entries, executable: java,
                commandLine: [java, "-classpath", "/usr/share/jedit/jedit.jar", "org.gjt.sp.jedit.jEdit"]),
            "jedit.desktop")
        // JDK 8 and older name the instance after the AWT peer (as documented by
        // OpenJDK's XToolkit; not observed here, Debian 12 has JDK 17).
        XCTAssertEqual(
            resolvedID(window("sun-awt-X11-XFramePeer", "org-gjt-sp-jedit-jEdit", pid: nil), entries),
            "jedit.desktop")
        var unclaimed = entries[0]
        unclaimed.startupWMClass = nil
        XCTAssertEqual(
            resolvedID(window("org-gjt-sp-jedit-jEdit", "org-gjt-sp-jedit-jEdit"), [unclaimed], executable: java),
            "jedit.desktop", "the entry named like the main class")
        XCTAssertEqual(
            resolvedID(
                window("org-gjt-sp-jedit-jEdit", "org-gjt-sp-jedit-jEdit"), entries, executable: "/usr/bin/other"),
            "wmclass:org-gjt-sp-jedit-jEdit", "a class with dashes means Java only when Java runs it")
    }

    func testJavaArchivesNameTheirApplication() {
        let entries = [entry("tool.desktop", name: "Tool", exec: "java -jar /opt/tool/tool.jar")]
        let facts = window("com-example-Main", "com-example-Main")
        XCTAssertEqual(
            resolvedID(
                facts, entries, executable: java, commandLine: [java, "-Xmx1g", "-jar", "/opt/tool/tool.jar", "--x"]),
            "tool.desktop")
        XCTAssertEqual(
            resolvedID(facts, entries, executable: java, commandLine: [java, "-jar", "/opt/other.jar"]),
            "wmclass:com-example-Main")
    }

    // MARK: Wine

    func testWineProgramsByTheEntryWinemenubuilderWrote() {
        // Wine 8 writes ~/.local/share/applications/wine/Programs/<shortcut>.desktop
        // with StartupWMClass; the window's process is the wine loader.
        let entries = [
            entry(
                "wine-Programs-Notepad.desktop", name: "Notepad",
                exec:
                    #"env WINEPREFIX="/home/ada/.wine" wine-stable C:\\\\users\\\\ada\\\\AppData\\\\Roaming\\\\"#
                    + #"Microsoft\\\\Windows\\\\Start\\ Menu\\\\Programs\\\\Notepad.lnk"#,
                wmClass: "notepad.exe", file: "wine/Programs/Notepad.desktop")
        ]
        XCTAssertEqual(
            resolvedID(
                window("notepad.exe", "notepad.exe"), entries, executable: "/usr/lib/wine/wine64",
                commandLine: [#"C:\windows\system32\notepad.exe"#]),
            "wine-Programs-Notepad.desktop")
        XCTAssertEqual(
            resolvedID(window("winecfg.exe", "winecfg.exe"), entries, executable: "/usr/lib/wine/wine64"),
            "wmclass:winecfg.exe", "the wine loader runs every Windows program")
    }
}
