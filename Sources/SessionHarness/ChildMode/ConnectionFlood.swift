import Foundation

/// A managed child flooding the daemon's socket, as they can from a shell: a Python script
/// run as them opens `connections` connections, sends an unended line of almost 1 MiB on
/// the first `heavy`, counts the refusals as they come (until none has come for 1.5 s: a
/// loaded machine answers more slowly), says so in one line, "connected N refused M", and
/// keeps every connection open until it is ended.
public struct ConnectionFlood {
    public let process: ChildProcess
    /// The script's line: how many connected, how many were refused.
    public let report: String
    private let script: String
    private let users: LocalUsers

    public init(desktop: ManagedDesktopRig, connections: Int = 1000, heavy: Int = 600) throws {
        let file = desktop.fixture.work.appendingPathComponent("flood.py")
        try Self.source.write(to: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        script = file.path
        users = desktop.fixture.users
        process = try desktop.startAsKid([
            "python3", script, desktop.fixture.socket, String(connections), String(heavy),
        ])
        guard let line = try process.waitForOutputLines(1, timeout: 90).first else {
            throw LocalUsersError(description: "the flood said nothing: \(process.standardError)")
        }
        report = line
    }

    /// Ends the script and so its connections (a signal to the process would reach
    /// `runuser`, not the child's script).
    public func stop() {
        _ = try? users.run(as: "root", ["pkill", "-KILL", "-f", script])
        process.signal(SIGKILL)
    }

    private static let source = #"""
        import socket, sys, time
        path, count, heavy = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
        held = []
        for _ in range(count):
            s = socket.socket(socket.AF_UNIX)
            try:
                s.connect(path)
                held.append(s)
            except OSError:
                pass
        for s in held:
            s.setblocking(False)
        for s in held[:heavy]:
            try:
                s.send(b"x" * ((1 << 20) - 64))
            except OSError:
                pass
        refusedAt = set()
        deadline = time.time() + 20
        quiet = time.time()
        while time.time() < deadline and time.time() - quiet < 1.5:
            for i, s in enumerate(held):
                if i in refusedAt:
                    continue
                try:
                    if b"too many connections" in s.recv(4096):
                        refusedAt.add(i)
                        quiet = time.time()
                except OSError:
                    pass
            time.sleep(0.1)
        print("connected", len(held), "refused", len(refusedAt), flush=True)
        time.sleep(600)
        """#
}
