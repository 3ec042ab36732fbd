import Foundation

/// A port on this machine's loopback that answers (python's HTTP server), for tests that
/// check a sandboxed program cannot reach the network: `probe` is a bash line that prints
/// `reached` or `unreachable`.
public final class LoopbackListener {
    public let port: String
    private let server: ChildProcess

    public init(timeout: TimeInterval = 10) throws {
        server = try ChildProcess(
            URL(fileURLWithPath: "/usr/bin/python3"), ["-u", "-m", "http.server", "--bind", "127.0.0.1", "0"],
            environment: [:])
        let deadline = Date().addingTimeInterval(timeout)
        var found: String?
        // It says "Serving HTTP on 127.0.0.1 port N …" once it listens.
        while found == nil, Date() < deadline {
            let said = (server.outputLines + [server.standardError]).joined(separator: "\n")
            if let after = said.components(separatedBy: " port ").dropFirst().first {
                let digits = String(after.prefix { $0.isNumber })
                if !digits.isEmpty { found = digits }
            }
            if found == nil { Thread.sleep(forTimeInterval: 0.05) }
        }
        guard let found else {
            server.stop()
            throw HarnessError.timedOut("python's HTTP server did not say its port within \(timeout) s")
        }
        port = found
    }

    deinit { server.stop() }

    public func stop() { server.stop() }

    /// A bash line that prints whether a connection to the port opens.
    public var probe: String {
        "if (exec 3<>/dev/tcp/127.0.0.1/\(port)) 2>/dev/null; then echo reached; else echo unreachable; fi"
    }
}
