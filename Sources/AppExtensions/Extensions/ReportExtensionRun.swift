@_spi(Screenward) import DeviceActivity
import Foundation
import Glibc
import ScreenwardIPC
import Synchronization

/// Runs an app's report extension once: the owner writes the request (the data, with
/// application names) to its standard input and reads what it drew from its standard
/// output. The extension runs in the box of every extension (a process group, `prlimit`,
/// a clean environment, as the extensions' user under the daemon) and, because it sees
/// names, in a network namespace of its own with nothing but a loopback that is down:
/// util-linux's `unshare --net` as root, and as anyone else with a user namespace
/// (`--user --map-current-user`). A machine that allows neither refuses to run it: the
/// usage never leaves the device.
///
/// Run as root (the daemon, for a managed user), it also keeps nothing it could hand to
/// anything that has a network: it gets IPC of its own, the world's temporary folders
/// (`/tmp`, `/var/tmp`, `/dev/shm`, `/run/lock`) read-only, and an empty tmpfs over
/// `privateFolders` (the extensions' own data, where its HOME and TMPDIR are made again),
/// gone when it exits. An app's monitor, which has the network, never reads what the report
/// extension wrote.
public struct ReportExtensionRun: Sendable {
    public var environment: [String: String]
    public var identity: ExtensionProcess.Identity?
    public var limits = ExtensionLimits()
    /// How long the extension has to answer.
    public var patience: Duration = .seconds(10)
    /// Folders its user may write besides the world's temporary ones, covered by an empty tmpfs
    /// while it runs (as root only; its HOME is made again inside).
    public var privateFolders: [String] = []
    /// The world-writable folders, read-only while it runs (as root only).
    static let sharedFolders = ["/tmp", "/var/tmp", "/dev/shm", "/run/lock"]

    /// What runs between `unshare` and the drop of privileges: the folders before the first
    /// `--` made read-only, an empty tmpfs over those before the second, the HOME made again
    /// for the extension's user (it is its TMPDIR too), then the rest.
    static let privateStorageScript = """
        owner="$1"; shift
        while [ "$1" != "--" ]; do
          if [ -d "$1" ]; then mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" || exit 125; fi
          shift
        done
        shift
        while [ "$1" != "--" ]; do
          if [ -d "$1" ]; then mount -t tmpfs -o size=16m,mode=0755,nosuid,nodev screenward-report "$1" || exit 125; fi
          shift
        done
        shift
        if [ -n "$HOME" ]; then mkdir -p "$HOME" && chown "$owner" "$HOME" && chmod 0700 "$HOME" || exit 125; fi
        exec "$@"
        """
    /// Where what it writes to standard error goes (the owner's log), line by line.
    public var log: @Sendable (String) -> Void

    public init(
        environment: [String: String], identity: ExtensionProcess.Identity?, log: @escaping @Sendable (String) -> Void
    ) {
        self.environment = environment
        self.identity = identity
        self.log = log
    }

    /// Why the extension drew nothing, as a phrase: the owner sends it to the command line,
    /// which tells it in the reader's language.
    public struct Failure: PhrasedError {
        public var phrase: Phrase
        init(_ phrase: Phrase) { self.phrase = phrase }
    }

    /// The program line: limits, then a network of its own, then (as root) the drop to
    /// the extensions' user, then the extension.
    func commandLine(for extension: AppExtension, currentProcesses: Int) -> [String] {
        let isolate: [String]
        if geteuid() == 0 {
            let owner = identity.map { "\($0.uid):\($0.gid)" } ?? "0:0"
            isolate =
                ["/usr/bin/unshare", "--net", "--ipc", "--mount", "--propagation", "private", "--"]
                + ["/bin/sh", "-c", Self.privateStorageScript, "screenward-report-box", owner]
                + Self.sharedFolders + ["--"] + privateFolders + ["--"]
        } else {
            isolate = ["/usr/bin/unshare", "--user", "--net", "--map-current-user", "--"]
        }
        return ExtensionProcess.boxedCommand(
            `extension`, limits: limits, currentProcesses: currentProcesses, identity: identity, isolation: isolate)
    }

    /// Runs `extension` with `request` and returns its view. Blocks the calling thread
    /// (at most `patience`): call it off the owner's loop.
    public func draw(
        _ extension: AppExtension, app: String, context: DeviceActivityReport.Context, data: [DeviceActivityData]
    ) throws -> ReportView {
        let input = try JSONEncoder().encode(ReportExtensionRequest(context: context, data: data))
        let uid = identity?.uid ?? geteuid()
        let command = commandLine(for: `extension`, currentProcesses: ExtensionProcess.taskCount(of: uid))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.environment = environment
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        let ended = Mutex(false)
        process.terminationHandler = { _ in ended.withLock { $0 = true } }
        do {
            try process.run()
        } catch {
            throw Failure(
                Phrase(
                    "{app}'s report extension could not be started: {error}", context: "service",
                    ["app": app, "error": "\(error)"]))
        }
        let pid = process.processIdentifier
        let label = "\(app) report (pid \(pid))"
        let log = log
        let output = BoundedReader(limit: ReportExtensionReply.maximumBytes)
        let reading = DispatchGroup()
        for (handle, isReply) in [(stdout.fileHandleForReading, true), (stderr.fileHandleForReading, false)] {
            reading.enter()
            Thread.detachNewThread {
                defer { reading.leave() }
                if isReply {
                    output.readAll(handle) { _ = Glibc.kill(-pid, SIGKILL) }
                } else {
                    BoundedReader(limit: limits.outputBytes).readLines(handle) { log("\(label): \($0)") }
                }
            }
        }
        Thread.detachNewThread {
            // An extension that never reads must not hold the owner: the write is on its own thread.
            try? stdin.fileHandleForWriting.write(contentsOf: input)
            try? stdin.fileHandleForWriting.close()
        }
        if !Self.wait(for: ended, atMost: patience) {
            _ = Glibc.kill(-pid, SIGKILL)
            _ = Glibc.kill(pid, SIGKILL)
            process.waitUntilExit()
            reading.wait()
            // The seconds as `Duration` writes them ("10.0"), the word "seconds" the message's own.
            let seconds = "\(patience / Duration.seconds(1))"
            throw Failure(
                Phrase(
                    "{app}'s report extension did not answer in {seconds} seconds and was killed", context: "service",
                    ["app": app, "seconds": seconds]))
        }
        _ = Glibc.kill(-pid, SIGKILL)  // whatever it left behind in its group
        reading.wait()
        if output.exceeded {
            throw Failure(
                Phrase(
                    "{app}'s report extension wrote more than {mebibytes} MiB and was killed", context: "service",
                    ["app": app, "mebibytes": "\(ReportExtensionReply.maximumBytes >> 20)"]))
        }
        let reply: ReportExtensionReply
        do {
            reply = try JSONDecoder().decode(ReportExtensionReply.self, from: output.data)
        } catch {
            // One whole text for each way it ended and each kind of output.
            let values: [String: any PhraseFilling] = [
                "app": app, "status": "\(process.terminationStatus)", "error": "\(error)",
            ]
            let killed = process.terminationReason == .uncaughtSignal
            // swift-format-ignore
            let message: Phrase =
                switch (killed, output.data.isEmpty) {
                case (true, true):
                    Phrase("{app}'s report extension was killed by signal {status} without a report: it wrote nothing", context: "service", values)
                case (true, false):
                    Phrase("{app}'s report extension was killed by signal {status} without a report: its output is not a report ({error})", context: "service", values)
                case (false, true):
                    Phrase("{app}'s report extension exited with status {status} without a report: it wrote nothing", context: "service", values)
                case (false, false):
                    Phrase("{app}'s report extension exited with status {status} without a report: its output is not a report ({error})", context: "service", values)
                }
            throw Failure(message)
        }
        if let error = reply.error {
            // The extension's own words, as it wrote them.
            throw Failure(
                Phrase(
                    "{app}'s report extension failed: {error}", context: "service",
                    ["app": app, "error": String(error.prefix(500))]))
        }
        guard let view = reply.view else {
            throw Failure(
                Phrase(
                    "{app}'s report extension answered neither a view nor an error", context: "service", ["app": app]))
        }
        try ReportViewLimits.check(view)
        return view
    }
}

extension ReportExtensionRun {
    /// Whether `flag` became true within `patience`, measured on the monotonic clock. Not a
    /// semaphore's timed wait: on Linux libdispatch turns that into a wall-clock instant, so a
    /// clock set back during the wait would stretch it by as much.
    static func wait(for flag: borrowing Mutex<Bool>, atMost patience: Duration) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + patience
        while !flag.withLock({ $0 }) {
            if clock.now >= deadline { return false }
            usleep(5_000)  // relative, on the kernel's clock (Foundation's sleep reckons with the wall clock)
        }
        return true
    }
}

/// Reads a pipe to its end, keeping at most `limit` bytes.
final class BoundedReader: Sendable {
    private let limit: Int
    private let state = Mutex<(data: Data, exceeded: Bool)>((Data(), false))

    init(limit: Int) { self.limit = limit }

    var data: Data { state.withLock { $0.data } }
    var exceeded: Bool { state.withLock { $0.exceeded } }

    /// Everything, or `tooMuch` once past the limit (and the rest is drained unread).
    func readAll(_ handle: FileHandle, tooMuch: () -> Void) {
        var told = false
        while let chunk = try? handle.read(upToCount: 65_536), !chunk.isEmpty {
            let over = state.withLock { state -> Bool in
                if state.exceeded { return true }
                if state.data.count + chunk.count > limit {
                    state.exceeded = true
                    return true
                }
                state.data.append(chunk)
                return false
            }
            if over, !told {
                told = true
                tooMuch()
            }
        }
    }

    /// Line by line (each cut at 500 characters), up to the limit.
    func readLines(_ handle: FileHandle, onLine: (String) -> Void) {
        var pending = Data()
        var total = 0
        while let chunk = try? handle.read(upToCount: 65_536), !chunk.isEmpty {
            total += chunk.count
            guard total <= limit else { continue }
            pending.append(chunk)
            while let newline = pending.firstIndex(of: 0x0A) {
                onLine(String(decoding: pending[pending.startIndex..<newline].prefix(500), as: UTF8.self))
                pending = Data(pending[pending.index(after: newline)...])
            }
        }
        if !pending.isEmpty { onLine(String(decoding: pending.prefix(500), as: UTF8.self)) }
    }
}

/// What a drawn report may hold, so a misbehaving extension cannot make the renderer
/// draw without end.
public enum ReportViewLimits {
    public static let maximumElements = 5_000
    public static let maximumDepth = 16
    public static let maximumImageSide = 4096

    public static func check(_ view: ReportView) throws {
        var count = 0
        func visit(_ view: ReportView, depth: Int) throws {
            count += 1
            guard count <= maximumElements else {
                throw ReportExtensionRun.Failure(
                    Phrase(
                        "the report has more than {maximum} elements", context: "service",
                        ["maximum": "\(maximumElements)"]))
            }
            guard depth <= maximumDepth else {
                throw ReportExtensionRun.Failure(
                    Phrase("the report nests deeper than {maximum}", context: "service", ["maximum": "\(maximumDepth)"])
                )
            }
            switch view {
            case .column(let children), .row(let children): for child in children { try visit(child, depth: depth + 1) }
            case .pieChart(let chart): count += chart.slices.count
            case .barChart(let chart): count += chart.bars.reduce(0) { $0 + $1.parts.count }
            case .table(let table): count += table.rows.reduce(0) { $0 + $1.cells.count }
            case .title, .text, .image: break
            }
            guard count <= maximumElements else {
                throw ReportExtensionRun.Failure(
                    Phrase(
                        "the report has more than {maximum} elements", context: "service",
                        ["maximum": "\(maximumElements)"]))
            }
        }
        try visit(view, depth: 0)
    }
}
