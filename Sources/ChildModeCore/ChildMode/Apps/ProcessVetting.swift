import AppExtensions
import Foundation
import ScreenwardBasics
import ScreenwardIPC

/// Checks, as root, that a connection to the daemon claiming an installed app's
/// identifier comes from that app as installed, running untampered, right now:
///
/// - its executable (`/proc/PID/exe`) is one the app's root-owned manifest names, and
///   has not been replaced since it started;
/// - it was started without `LD_PRELOAD`, `LD_LIBRARY_PATH` or `LD_AUDIT`, and every
///   executable mapping in it comes from a root-owned file nobody else can write (no
///   code of the child's was loaded, however it got there);
/// - nothing traces it, and it is non-dumpable (its `/proc/PID` belongs to root), so
///   nothing of the child's can attach later or read or write its memory;
/// - the `AppProof` it opened the connection with is in its memory now: the connection
///   is this image's own, not one a script opened before `exec`-ing the app.
///
/// What it cannot see: a debugger that changed the app's data and detached before the
/// app made itself non-dumpable. `kernel.yama.ptrace_scope = 2` (desktop/sysctl) closes
/// that: then no child can trace anything. docs/architecture.md says so.
public struct ProcessVetting: Sendable {
    public let procRoot: String

    public init(procRoot: String = "/proc") {
        self.procRoot = procRoot
    }

    /// The environment variables that make the dynamic loader load other code.
    static let loaderVariables = ["LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT"]

    /// Nothing when `pid` (running as `uid`) is `app`, untampered, and holds `proof`;
    /// otherwise why not, in words for the guardians' record.
    public func refusal(pid: Int32, uid: UInt32, app: InstalledApp, proof: AppProof?) -> String? {
        let base = "\(procRoot)/\(pid)"
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(base)/exe") else {
            return "process \(pid) is gone or unreadable"
        }
        if executable.hasSuffix(" (deleted)") {
            return "process \(pid) runs a deleted or replaced executable (\(executable))"
        }
        guard app.executables.contains(executable) else {
            return
                "process \(pid) runs \(executable), which is not one of \(app.bundleIdentifier)'s installed executables"
        }
        guard let status = text("\(base)/status", limit: 16 * 1024) else {
            return "process \(pid)'s status is unreadable"
        }
        if let problem = Self.tracedOrAnotherUser(status, uid: uid, subject: "process \(pid)") { return problem }
        if uid != 0 {
            // The kernel gives a non-dumpable process's files (not its folder) to root.
            let owner =
                (try? FileManager.default.attributesOfItem(atPath: "\(base)/status"))?[.ownerAccountID] as? NSNumber
            guard owner?.uint32Value == 0 else {
                return
                    """
                    process \(pid) is dumpable: another process of its user could trace it \
                    (the Screen Time API makes an app non-dumpable before it connects)
                    """
            }
        }
        guard let environ = data("\(base)/environ", limit: 512 * 1024) else {
            return "process \(pid)'s environment is unreadable"
        }
        if let variable = Self.loaderVariable(in: environ) { return "process \(pid) was started with \(variable) set" }
        guard let maps = text("\(base)/maps", limit: 4 * 1024 * 1024) else {
            return "process \(pid)'s memory map is unreadable"
        }
        if let problem = Self.foreignCode(in: maps) { return "process \(pid) \(problem)" }
        guard let proof else {
            return
                """
                the connection did not open with the app's proof \
                (an app of a managed account connects through the Screen Time API)
                """
        }
        guard proof.secret.count == AppProof.secretLength, let handle = FileHandle(forReadingAtPath: "\(base)/mem")
        else {
            return "process \(pid)'s proof cannot be checked"
        }
        defer { try? handle.close() }
        let held = try? { () throws -> Data? in
            try handle.seek(toOffset: proof.address)
            return try handle.read(upToCount: AppProof.secretLength)
        }()
        guard let held, held == Data(proof.secret) else {
            return
                """
                process \(pid) does not hold the proof its connection opened with \
                (a connection made before exec, or passed from another process)
                """
        }
        return nil
    }

    /// The browser that started `screenward-web-host` (process `pid`, already vetted as the
    /// installed host): its parent, which must run one of `browsers` (canonical paths, root's
    /// files) as the same user, untraced, started without the loader's variables. A browser
    /// runs code it compiles (its JIT), so its memory map is not checked, and it stays
    /// dumpable: with `kernel.yama.ptrace_scope` below 2, a debugger of the child's could
    /// change what its extension reports (docs/architecture.md).
    public func browser(startingHost pid: Int32, uid: UInt32, browsers: Set<String>) -> Result<Int32, VettingRefusal> {
        guard let status = text("\(procRoot)/\(pid)/status", limit: 16 * 1024),
            let parent = Self.field("PPid", in: status).flatMap({ Int32($0) }), parent > 1
        else {
            return .failure(VettingRefusal("process \(pid) has no parent that could be a browser"))
        }
        let base = "\(procRoot)/\(parent)"
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(base)/exe") else {
            return .failure(VettingRefusal("its parent, process \(parent), is gone or unreadable"))
        }
        guard browsers.contains(executable) else {
            return .failure(
                VettingRefusal(
                    """
                    its parent, process \(parent), runs \(executable), \
                    which is not a browser Screenward supports (\(browsers.sorted().joined(separator: ", ")))
                    """
                ))
        }
        if let problem = FileTrust.problem(executable, trust: .rootOnly, ancestors: true) {
            return .failure(VettingRefusal("its parent runs \(executable): \(problem)"))
        }
        guard let parentStatus = text("\(base)/status", limit: 16 * 1024) else {
            return .failure(VettingRefusal("its parent's status is unreadable"))
        }
        let subject = "its parent, the browser \(parent),"
        if let problem = Self.tracedOrAnotherUser(parentStatus, uid: uid, subject: subject) {
            return .failure(VettingRefusal(problem))
        }
        guard let environ = data("\(base)/environ", limit: 512 * 1024) else {
            return .failure(VettingRefusal("its parent's environment is unreadable"))
        }
        if let variable = Self.loaderVariable(in: environ) {
            return .failure(VettingRefusal("\(subject) was started with \(variable) set"))
        }
        return .success(parent)
    }

    /// Nothing when the compositor of a managed child's Wayland session runs the system's
    /// program as installed, untraced, started without the loader's variables; otherwise why
    /// not. It runs as the child, so this is what keeps the child's code out of it when it
    /// starts; its memory map is not checked (a GPU driver may compile code), and with
    /// `kernel.yama.ptrace_scope` below 2 a debugger of the child's could attach later
    /// (the daemon checks again while the session lasts; docs/architecture.md).
    public func compositor(_ compositor: SessionCompositor, uid: UInt32) -> VettingRefusal? {
        let base = "\(procRoot)/\(compositor.pid)"
        let subject = "the compositor \(compositor.executable) (pid \(compositor.pid))"
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(base)/exe"),
            executable == compositor.executable
        else { return VettingRefusal("\(subject) is gone or runs another program") }
        if let problem = FileTrust.problem(executable, trust: .rootOnly, ancestors: true) {
            return VettingRefusal("\(subject): \(problem)")
        }
        guard let status = text("\(base)/status", limit: 16 * 1024) else {
            return VettingRefusal("\(subject)'s status is unreadable")
        }
        if let problem = Self.tracedOrAnotherUser(status, uid: uid, subject: subject) { return VettingRefusal(problem) }
        guard let environ = data("\(base)/environ", limit: 512 * 1024) else {
            return VettingRefusal("\(subject)'s environment is unreadable")
        }
        if let variable = Self.loaderVariable(in: environ) {
            return VettingRefusal("\(subject) was started with \(variable) set")
        }
        return nil
    }

    /// Why a process (named `subject`) cannot be taken by its status: something traces it,
    /// or it runs as another user than `uid`.
    static func tracedOrAnotherUser(_ status: String, uid: UInt32, subject: String) -> String? {
        let tracer = field("TracerPid", in: status)
        guard tracer == "0" else { return "\(subject) is being traced (by pid \(tracer ?? "?"))" }
        if let real = field("Uid", in: status)?.split(whereSeparator: \.isWhitespace).first, real != "\(uid)" {
            return "\(subject) runs as uid \(real), not the caller's \(uid)"
        }
        return nil
    }

    /// The variable of the dynamic loader's that a process's environment (`/proc/PID/environ`) sets, if any.
    static func loaderVariable(in environ: Data) -> String? {
        for record in environ.split(separator: 0) {
            let entry = String(decoding: record.prefix(32), as: UTF8.self)
            if let variable = loaderVariables.first(where: { entry.hasPrefix("\($0)=") }) { return variable }
        }
        return nil
    }

    /// Executable mappings that are not the system's code: anonymous ones (code written
    /// at run time) or files someone other than root could have written.
    static func foreignCode(in maps: String) -> String? {
        var checked: Set<String> = []
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count >= 5, fields[1].contains("x") else { continue }
            let path = fields.count == 6 ? fields[5].trimmingCharacters(in: .whitespaces) : ""
            if path == "[vdso]" || path == "[vsyscall]" { continue }
            guard path.hasPrefix("/") else {
                return "has executable memory that is not from a file (\(path.isEmpty ? "anonymous" : path))"
            }
            if path.hasSuffix(" (deleted)") { return "runs code from a deleted file (\(path))" }
            guard checked.insert(path).inserted else { continue }
            if let problem = FileTrust.problem(path, trust: .rootOnly) { return "runs code from \(path): \(problem)" }
        }
        return nil
    }

    static func field(_ name: String, in status: String) -> String? {
        for line in status.split(separator: "\n") where line.hasPrefix("\(name):") {
            return line.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    private func data(_ path: String, limit: Int) -> Data? {
        ProcfsInspector.read(path, limit: limit)
    }

    private func text(_ path: String, limit: Int) -> String? {
        data(path, limit: limit).map { String(decoding: $0, as: UTF8.self) }
    }
}

/// Why a process is not what it claims, in words for the guardians' record.
public struct VettingRefusal: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
