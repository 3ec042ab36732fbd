import Foundation
import Glibc
import ScreenwardCore

/// The machine made ready for the browsers: host names for a local HTTP server, and
/// Screenward's extension installed for both browsers as root installs it. Everything it
/// changes outside its folder (/etc/hosts, the policies, the manifests) it changes back.
public final class BrowserRig {
    public static let hostNames = ["www.videos.test", "m.videos.test", "en.wiki.test", "news.test"]
    private static let hostsMarker = "# screenward-test"
    public let folder: URL
    public let port: Int
    /// What the hosts both browsers started wrote to their standard error.
    public let hostLog: URL
    public var hostLines: String { (try? String(contentsOf: hostLog, encoding: .utf8)) ?? "" }
    private let server: ChildProcess
    private let prefix: URL
    private var browsers: [ChildProcess] = []

    /// The programs the rig needs, with their Debian packages.
    static let programs = [("chromium", "chromium"), ("firefox-esr", "firefox-esr"), ("python3", "python3")]

    /// Why the rig cannot run here, or nil when it can.
    public static func missingRequirement() -> String? {
        guard geteuid() == 0 else { return "the browsers' policies and /etc/hosts are root's to change" }
        for (program, package) in programs where ManagedDesktopRig.findProgram(program) == nil {
            return "\(program) is not on PATH (apt-get install \(package))"
        }
        return nil
    }

    static func program(_ name: String) throws -> URL {
        guard let found = ManagedDesktopRig.findProgram(name) else {
            throw HarnessError.missingProgram("\(name) is not on PATH")
        }
        return found
    }

    /// The rig in `temporary` (which others may enter: a managed child's browsers start the
    /// host from there). The browsers start `host` (default: the host as built) with its
    /// standard error kept in `hostLog`.
    public init(temporary: URL, host: URL? = nil) throws {
        if let missing = Self.missingRequirement() { throw HarnessError.missingProgram(missing) }
        let python = try Self.program("python3")
        folder = temporary.appendingPathComponent("web")
        let pages = folder.appendingPathComponent("pages")
        try FileManager.default.createDirectory(at: pages, withIntermediateDirectories: true)
        for (file, title) in [("video.html", "Video page"), ("wiki.html", "Wiki page"), ("news.html", "News page")] {
            try "<!doctype html><html><head><title>\(title)</title></head><body><h1>\(title)</h1></body></html>\n"
                .write(to: pages.appendingPathComponent(file), atomically: true, encoding: .utf8)
        }
        server = try ChildProcess(
            python,
            [
                "-c",
                """
                import functools, http.server, sys
                handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
                server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
                print(server.server_address[1], flush=True)
                server.serve_forever()
                """, pages.path,
            ])
        guard let line = try server.waitForOutputLines(1, timeout: 10).first, let port = Int(line) else {
            throw HarnessError.failed("the HTTP server did not start: \(server.standardError)")
        }
        self.port = port
        try Self.removeHostNames()
        let hosts = try String(contentsOfFile: "/etc/hosts", encoding: .utf8)
        try
            (hosts + (hosts.hasSuffix("\n") ? "" : "\n")
            + "127.0.0.1 \(Self.hostNames.joined(separator: " ")) \(Self.hostsMarker)\n")
            .write(toFile: "/etc/hosts", atomically: false, encoding: .utf8)
        // An installation whose programs are this build's.
        prefix = folder.appendingPathComponent("prefix")
        try FileManager.default.createDirectory(
            at: prefix.appendingPathComponent("bin"), withIntermediateDirectories: true)
        // The host as built, its log kept in a file (Firefox keeps no host's standard error).
        hostLog = folder.appendingPathComponent("host.log")
        // `exec`: the host keeps the browser for its parent, as the daemon requires.
        let wrapper = prefix.appendingPathComponent("bin/screenward-web-host")
        let hostProgram = try host ?? ProjectPrograms.url(of: "screenward-web-host")
        try "#!/bin/sh\nexec '\(hostProgram.path)' \"$@\" 2>>'\(hostLog.path)'\n".write(
            to: wrapper, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: wrapper.path)
        guard
            FileManager.default.createFile(atPath: hostLog.path, contents: nil, attributes: [.posixPermissions: 0o666])
        else {
            throw HarnessError.failed("cannot create the hosts' log \(hostLog.path)")
        }
        for folder in [folder, prefix, prefix.appendingPathComponent("bin")] {
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        }
        try run(["browsers", "install", "--prefix", prefix.path])
    }

    /// Chromium's command line with a profile in `profile`. (As root it runs only without
    /// its sandbox; a child's runs so too, as this machine may not let users make namespaces.)
    public static func chromiumCommand(profile: String, urls: [String]) throws -> [String] {
        [
            try program("chromium").path, "--no-sandbox", "--user-data-dir=\(profile)", "--no-first-run",
            "--no-default-browser-check", "--disable-gpu", "--password-store=basic",
        ] + urls
    }

    /// Firefox ESR's command line with the profile in `profile` (which must exist).
    public static func firefoxCommand(profile: String, urls: [String]) throws -> [String] {
        [try program("firefox-esr").path, "--profile", profile, "--no-remote"] + urls
    }

    public func chromium(environment: [String: String], urls: [String]) throws -> ChildProcess {
        let command = try Self.chromiumCommand(profile: folder.appendingPathComponent("chromium").path, urls: urls)
        let browser = try ChildProcess(
            URL(fileURLWithPath: command[0]), Array(command.dropFirst()), environment: environment)
        browsers.append(browser)
        return browser
    }

    public func firefox(environment: [String: String], urls: [String]) throws -> ChildProcess {
        let profile = folder.appendingPathComponent("firefox")
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        let command = try Self.firefoxCommand(profile: profile.path, urls: urls)
        let browser = try ChildProcess(
            URL(fileURLWithPath: command[0]), Array(command.dropFirst()),
            environment: environment.merging(["MOZ_CRASHREPORTER_DISABLE": "1"]) { $1 })
        browsers.append(browser)
        return browser
    }

    /// The X authority file xdotool uses (a managed child's display takes their cookie).
    public var xAuthority: String?

    private func x(_ display: String) -> [String: String] {
        ["DISPLAY": display].merging(xAuthority.map { ["XAUTHORITY": $0] } ?? [:]) { $1 }
    }

    /// A browser started elsewhere (as a child), stopped with the rig.
    public func adopt(_ browser: ChildProcess) {
        browsers.append(browser)
    }

    /// The window titled exactly `title`, waited for (browsers take seconds to start).
    public func window(titled title: String, display: String, xdotool: URL, or browser: ChildProcess?) throws -> String
    {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if let id = windowID(titled: title, display: display, xdotool: xdotool) { return id }
            Thread.sleep(forTimeInterval: 0.02)
        }
        let shown = windowTitles(display: display, xdotool: xdotool).joined(separator: " | ")
        throw HarnessError.timedOut(
            """
            no window titled \(title) (the windows: \(shown)); the hosts said: \
            \(hostLines.suffix(2000))\(browser.map { "; the browser: \($0.standardError.suffix(1000))" } ?? "")
            """
        )
    }

    /// The titles of the display's named windows now, for a failure's message.
    private func windowTitles(display: String, xdotool: URL) -> [String] {
        guard let search = try? ChildProcess(xdotool, ["search", "--name", "."], environment: x(display)) else {
            return []
        }
        search.closeInput()
        _ = search.waitForExit(timeout: 10)
        return search.outputLines.prefix(40).compactMap { id in
            guard let name = try? ChildProcess(xdotool, ["getwindowname", id], environment: x(display)) else {
                return nil
            }
            name.closeInput()
            _ = name.waitForExit(timeout: 10)
            return name.outputLines.first
        }
    }

    /// Presses the shield page's second button from the keyboard: a click on the page's
    /// empty left edge gives it the focus, then Tab, Tab (the first button, the second), Return.
    public func pressSecondaryButton(in window: String, display: String, xdotool: URL) throws {
        Thread.sleep(forTimeInterval: 0.5)  // the page's look drawn
        let steps = [
            ["windowactivate", "--sync", window], ["mousemove", "--window", window, "5", "400"], ["click", "1"],
            ["key", "Tab"], ["key", "Tab"], ["key", "Return"],
        ]
        try drive(steps.map { ($0, 0.2) }, display: display, xdotool: xdotool)
    }

    /// Runs xdotool once per step, pausing after each.
    private func drive(_ steps: [([String], TimeInterval)], display: String, xdotool: URL) throws {
        for (step, pause) in steps {
            let keys = try ChildProcess(xdotool, step, environment: x(display))
            keys.closeInput()
            guard keys.waitForExit(timeout: 30) == 0 else {
                throw HarnessError.failed("xdotool \(step): \(keys.standardError)")
            }
            Thread.sleep(forTimeInterval: pause)
        }
    }

    /// The id (`0x…`) of a window titled exactly `title`, if there is one now.
    private func windowID(titled title: String, display: String, xdotool: URL) -> String? {
        guard
            let search = try? ChildProcess(
                xdotool, ["search", "--name", "^\(NSRegularExpression.escapedPattern(for: title))$"],
                environment: x(display))
        else { return nil }
        search.closeInput()
        _ = search.waitForExit(timeout: 10)
        return search.outputLines.first.flatMap { UInt($0) }.map { "0x" + String($0, radix: 16) }
    }

    /// Whether the extension in `browser` (`chromium`, `firefox`) has said hello to a host
    /// that browser started.
    public func isConnected(_ browser: String) -> Bool {
        hostLines.split(separator: "\n").contains {
            $0.hasPrefix("screenward-web-host (\(browser)") && $0.hasSuffix("is connected")
        }
    }

    /// Waits until the extension in each of `browsers` is connected to its host (a browser
    /// takes seconds to start and load it).
    public func waitUntilConnected(_ browsers: [String], timeout: TimeInterval = 60) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !browsers.allSatisfy(isConnected) {
            guard Date() < deadline else {
                throw HarnessError.timedOut(
                    "the extensions of \(browsers) did not connect to their hosts: \(hostLines.suffix(2000))")
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    public func hasWindow(titled title: String, display: String, xdotool: URL) -> Bool {
        windowID(titled: title, display: display, xdotool: xdotool) != nil
    }

    /// Screenward's data folder (for SCREENWARD_DATA_DIR) with these websites' categories added.
    public func dataDirectory(websites: [String: String]) throws -> URL {
        let shipped = try DataDirectory.url(of: "categories.json").deletingLastPathComponent()
        let folder = self.folder.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for file in ["shield.json", "rules.json"] {
            try FileManager.default.copyItem(
                at: shipped.appendingPathComponent(file), to: folder.appendingPathComponent(file))
        }
        guard
            var table = try JSONSerialization.jsonObject(
                with: Data(contentsOf: shipped.appendingPathComponent("categories.json"))) as? [String: Any]
        else {
            throw HarnessError.failed("the shipped categories.json is not a JSON object")
        }
        table["websites"] = (table["websites"] as? [String: String] ?? [:]).merging(websites) { $1 }
        try JSONSerialization.data(withJSONObject: table).write(to: folder.appendingPathComponent("categories.json"))
        return folder
    }

    /// How many requests for `path` the HTTP server has answered.
    public func requests(for path: String) -> Int {
        server.standardError.components(separatedBy: "\"GET \(path) ").count - 1
    }

    /// Types `url` into the address bar of `window` (activated first) and goes there.
    public func navigate(_ window: String, to url: String, display: String, xdotool: URL) throws {
        try drive(
            [
                (["windowactivate", "--sync", window], 0.2), (["key", "ctrl+l"], 0.3),
                (["type", "--delay", "5", url], 0.1), (["key", "Return"], 0),
            ], display: display, xdotool: xdotool)
    }

    private func run(_ arguments: [String]) throws {
        let command = try ChildProcess(try ProjectPrograms.url(of: "screenward"), arguments)
        command.closeInput()
        guard command.waitForExit(timeout: 60) == 0 else {
            throw HarnessError.failed("screenward \(arguments): \(command.standardError)")
        }
    }

    public func remove() {
        for browser in browsers { browser.stop(grace: 3) }
        server.stop(grace: 1)
        try? run(["browsers", "remove", "--prefix", prefix.path])
        try? Self.removeHostNames()
    }

    private static func removeHostNames() throws {
        let hosts = try String(contentsOfFile: "/etc/hosts", encoding: .utf8)
        let kept = hosts.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasSuffix(hostsMarker) }
        if kept.count != hosts.split(separator: "\n", omittingEmptySubsequences: false).count {
            try kept.joined(separator: "\n").write(toFile: "/etc/hosts", atomically: false, encoding: .utf8)
        }
    }
}
