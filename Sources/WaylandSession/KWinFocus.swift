import CGLib
import Foundation
import GLibRuntime

/// The window KWin activated, as a KWin script of the agent's reports it over the session bus.
/// KWin tells no Wayland client which window is active (its window-management protocol is for
/// Plasma's own shell): a script inside it hears `workspace.clientActivated` and calls this
/// receiver with the window's process, class, caption, desktop file and id, as KWin knows them.
/// Only KWin may call: a call from any other sender is refused.
public final class KWinFocus {
    /// One activation; `pid` 0 and empty strings when nothing is active.
    public struct Activation: Sendable, Equatable {
        public var pid: Int32
        public var resourceClass: String
        public var resourceName: String
        public var caption: String
        public var desktopFileName: String
        /// KWin's id of the window (a UUID), stable while it lives.
        public var internalID: String
    }

    public enum Problem: Error, CustomStringConvertible {
        case noSessionBus(String)
        case noKWin
        case failed(String)

        public var description: String {
            switch self {
            case .noSessionBus(let why): "no session bus, where KWin's scripts are loaded: \(why)"
            case .noKWin: "KWin is not on the session bus (org.kde.KWin)"
            case .failed(let why): "KWin's script could not be started: \(why)"
            }
        }
    }

    static let interface = "org.screenward.KWinFocus"
    private let endpoint: SessionBusEndpoint
    /// The name the script calls.
    public let busName: String
    private let pluginName: String
    private let scriptFile: URL
    private var started = false

    /// Connects to the session bus, where the receiver is exported once started.
    public init(scriptFolder: URL) throws {
        do {
            endpoint = try SessionBusEndpoint(interface: Self.interface, path: "/", introspection: Self.introspection)
        } catch SessionBusEndpoint.Problem.noSessionBus(let why) {
            throw Problem.noSessionBus(why)
        }
        let pid = getpid()
        busName = Self.busName(of: pid)
        pluginName = Self.pluginName(of: pid)
        scriptFile = scriptFolder.appendingPathComponent("screenward-kwin-focus-\(pid).js")
    }

    deinit { stop() }

    /// Exports the receiver, loads the script into KWin and runs it; `handler` hears the window
    /// active now, then each activation, on the loop. Only KWin's own connection is heard: any
    /// other program of the session could otherwise say that anything has the focus.
    public func start(_ handler: @escaping (Activation) -> Void) throws {
        guard let kwin = endpoint.owner(of: "org.kde.KWin") else { throw Problem.noKWin }
        do {
            try endpoint.export(owning: busName, acceptingFrom: kwin) { method, arguments in
                guard method == "Activated", arguments.count == 6, let pid = arguments[0].int32 else { return false }
                let strings = arguments.dropFirst().compactMap(\.string)
                guard strings.count == 5 else { return false }
                handler(
                    Activation(
                        pid: pid, resourceClass: strings[0], resourceName: strings[1], caption: strings[2],
                        desktopFileName: strings[3], internalID: strings[4]))
                return true
            }
        } catch let problem as SessionBusEndpoint.Problem {
            throw Problem.failed("\(problem)")
        }
        started = true
        unloadLeftovers()
        try Data(Self.script(calling: busName).utf8).write(to: scriptFile)
        let id = try callKWin(
            path: "/Scripting", interface: "org.kde.kwin.Scripting", method: "loadScript",
            [g_variant_new_string(scriptFile.path), g_variant_new_string(pluginName)])
        guard let number = id.child(0).flatMap({ $0.typeString == "i" ? g_variant_get_int32($0.raw) : nil }),
            number >= 0
        else { throw Problem.failed("KWin did not load \(scriptFile.path)") }
        // KWin 5 puts a script at /<id>; KWin 6 at /Scripting/Script<id>.
        do {
            _ = try callKWin(path: "/\(number)", interface: "org.kde.kwin.Script", method: "run", [])
        } catch {
            _ = try callKWin(path: "/Scripting/Script\(number)", interface: "org.kde.kwin.Script", method: "run", [])
        }
    }

    /// Unloads the script and leaves the bus.
    public func stop() {
        guard started else { return endpoint.close() }
        started = false
        _ = try? callKWin(
            path: "/Scripting", interface: "org.kde.kwin.Scripting", method: "unloadScript",
            [g_variant_new_string(pluginName)])
        try? FileManager.default.removeItem(at: scriptFile)
        endpoint.close()
    }

    /// An agent killed outright leaves its script loaded in KWin (calling a name nobody owns)
    /// and its file in the folder: the next agent unloads the scripts whose agent's bus name
    /// has no owner, and removes their files.
    private func unloadLeftovers() {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: scriptFile.deletingLastPathComponent().path))
        for file in files ?? [] {
            guard let pid = Self.agentPID(ofScriptFile: file), pid != getpid(),
                endpoint.owner(of: Self.busName(of: pid)) == nil
            else { continue }
            _ = try? callKWin(
                path: "/Scripting", interface: "org.kde.kwin.Scripting", method: "unloadScript",
                [g_variant_new_string(Self.pluginName(of: pid))])
            try? FileManager.default.removeItem(at: scriptFile.deletingLastPathComponent().appendingPathComponent(file))
        }
    }

    static func busName(of pid: Int32) -> String { "org.screenward.agent.p\(pid)" }
    static func pluginName(of pid: Int32) -> String { "screenward-agent-\(pid)" }

    /// The agent's pid a script file's name carries (`screenward-kwin-focus-<pid>.js`).
    static func agentPID(ofScriptFile name: String) -> Int32? {
        let prefix = "screenward-kwin-focus-"
        guard name.hasPrefix(prefix), name.hasSuffix(".js") else { return nil }
        return Int32(name.dropFirst(prefix.count).dropLast(3))
    }

    // MARK: Calls

    /// KWin's unique name on the session bus, if it runs there.
    static func ownerOfKWin() throws -> String {
        let endpoint = try SessionBusEndpoint(interface: interface, path: "/", introspection: introspection)
        defer { endpoint.close() }
        guard let owner = endpoint.owner(of: "org.kde.KWin") else { throw Problem.noKWin }
        return owner
    }

    @discardableResult
    private func callKWin(path: String, interface: String, method: String, _ arguments: [OpaquePointer?]) throws
        -> VariantRef
    {
        do {
            return try endpoint.call(
                destination: "org.kde.KWin", path: path, interface: interface, method: method, arguments)
        } catch {
            throw Problem.failed("\(error)")
        }
    }

    // MARK: The script and the interface

    static let introspection = """
        <node><interface name="\(interface)"><method name="Activated">\
        <arg type="i" direction="in"/><arg type="s" direction="in"/><arg type="s" direction="in"/>\
        <arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="s" direction="in"/>\
        </method></interface></node>
        """

    /// The script KWin runs: the window active now, then each activation, called to `busName`.
    static func script(calling busName: String) -> String {
        """
        function report(client) {
            var c = client || { pid: 0, resourceClass: "", resourceName: "", caption: "", desktopFileName: "",
                internalId: "" };
            callDBus("\(busName)", "/", "\(interface)", "Activated", c.pid, String(c.resourceClass),
                String(c.resourceName), String(c.caption), String(c.desktopFileName || ""), String(c.internalId));
        }
        workspace.clientActivated.connect(report);
        report(workspace.activeClient);

        """
    }
}
