import Foundation

/// A child process with its output captured line by line, for driving the real
/// programs from tests, the demo and the benchmark.
public final class ChildProcess: @unchecked Sendable {
    public let process = Process()
    public let name: String
    private let stdinPipe: Pipe
    private let stdoutPipe: Pipe
    private let stderrPipe: Pipe
    private let state = NSCondition()
    private var stdoutLines: [String] = []
    private var stderrText = ""
    private var partialStdout = Data()
    /// Whether each pipe has reached its end (every writer closed it), and when either
    /// last gave something: see `drainOutput`.
    private var stdoutEnded = false
    private var stderrEnded = false
    private var lastOutput = Date()

    /// Starts `executable` with `arguments`; `environment` entries are added to ours.
    public init(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) throws {
        // Before the pipes are made: none of them may take a closed standard descriptor's number.
        HarnessStreams.check(beforeStarting: executable.lastPathComponent)
        (stdinPipe, stdoutPipe, stderrPipe) = (Pipe(), Pipe(), Pipe())
        name = executable.lastPathComponent
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = stdinPipe
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        try process.run()
        Self.read(stdoutPipe.fileHandleForReading) { [weak self] in self?.appendStdout($0) }
        Self.read(stderrPipe.fileHandleForReading) { [weak self] in self?.appendStderr($0) }
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    /// Reads `handle` on a thread of its own until its end (an empty read), handing on each
    /// piece and then the empty end. (Foundation's `readabilityHandler` was not called again
    /// for an end that came together with the last output, so the end went unseen.) At its end
    /// the pipe is closed at once, not when this object goes: XCTest keeps every test case and
    /// what it holds until the run ends, and the test process had 1,800 pipes open by then,
    /// which its children inherited a number of (see `ProgramStart`).
    private static func read(_ handle: FileHandle, _ deliver: @escaping @Sendable (Data) -> Void) {
        Thread.detachNewThread {
            while true {
                let data = handle.availableData
                deliver(data)
                if data.isEmpty { break }
            }
            try? handle.close()
        }
    }

    private func appendStderr(_ data: Data) {
        state.lock()
        defer { state.unlock() }
        lastOutput = Date()
        if data.isEmpty { stderrEnded = true } else { stderrText += String(decoding: data, as: UTF8.self) }
        state.broadcast()
    }

    private func appendStdout(_ data: Data) {
        state.lock()
        defer { state.unlock() }
        lastOutput = Date()
        if data.isEmpty { stdoutEnded = true }
        partialStdout.append(data)
        while let newline = partialStdout.firstIndex(of: 10) {
            stdoutLines.append(String(decoding: partialStdout[partialStdout.startIndex..<newline], as: UTF8.self))
            partialStdout.removeSubrange(partialStdout.startIndex...newline)
        }
        state.broadcast()
    }

    public var pid: Int32 { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }

    public var standardError: String {
        state.lock()
        defer { state.unlock() }
        return stderrText
    }

    public var outputLines: [String] {
        state.lock()
        defer { state.unlock() }
        return stdoutLines
    }

    /// Waits until standard output has at least `count` lines; returns them.
    public func waitForOutputLines(_ count: Int, timeout: TimeInterval = 10) throws -> [String] {
        try waitFor("\(count) lines of output", timeout: timeout) { stdoutLines.count >= count }
        return outputLines
    }

    /// Waits until standard error contains `text`.
    public func waitForStandardError(containing text: String, timeout: TimeInterval = 10) throws {
        try waitFor("\"\(text)\" on standard error", timeout: timeout) { stderrText.contains(text) }
    }

    private func waitFor(_ what: String, timeout: TimeInterval, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        var exitNoticed: Date?
        state.lock()
        defer { state.unlock() }
        while !condition() {
            let now = Date()
            if now >= deadline {
                throw HarnessError.timedOut(
                    "\(name): no \(what) within \(timeout) s; stderr: \(stderrText.suffix(2000))")
            }
            if !process.isRunning {
                // Its last words are all in once both pipes have ended; a pipe something it
                // left behind still holds gets a moment to deliver them.
                let noticed = exitNoticed ?? now
                exitNoticed = noticed
                if stdoutEnded && stderrEnded || now.timeIntervalSince(noticed) > 0.3 {
                    throw HarnessError.failed(
                        """
                        \(name) exited (status \(process.terminationStatus)) before \(what); stderr: \
                        \(stderrText.suffix(2000))
                        """
                    )
                }
            }
            _ = state.wait(until: min(deadline, now.addingTimeInterval(0.05)))
        }
    }

    /// Sends a line to the child's standard input.
    public func send(_ line: String) {
        stdinPipe.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// Writes bytes as they are (a binary protocol).
    public func write(_ bytes: Data) {
        stdinPipe.fileHandleForWriting.write(bytes)
    }

    public func closeInput() {
        try? stdinPipe.fileHandleForWriting.close()
    }

    public func signal(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits for the child to exit; returns its status, or nil on timeout. A child a
    /// signal ended returns the signal's number: use `waitForTermination` to tell them apart.
    /// Once it has, what it wrote before exiting has been read (`outputLines`, `standardError`).
    @discardableResult
    public func waitForExit(timeout: TimeInterval = 10) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            if Date() >= deadline { return nil }
            Thread.sleep(forTimeInterval: 0.01)
        }
        // Nobody reads its input any more: that pipe goes now too.
        closeInput()
        drainOutput()
        return process.terminationStatus
    }

    /// After the exit, waits until both pipes have ended, so that a test reading the output
    /// next sees all of it (the readers run on threads of their own, and may lag the exit).
    /// A process the child started may hold a pipe open long after: then it waits only
    /// until the pipes have been quiet for `quiet` seconds, and never past `limit`.
    private func drainOutput(quiet: TimeInterval = 0.5, limit: TimeInterval = 3) {
        let start = Date()
        state.lock()
        defer { state.unlock() }
        while !(stdoutEnded && stderrEnded) {
            let now = Date()
            let quietUntil = max(lastOutput, start).addingTimeInterval(quiet)
            let end = min(quietUntil, start.addingTimeInterval(limit))
            if now >= end { return }
            _ = state.wait(until: end)
        }
    }

    /// How a child ended: it exited with a status, or a signal it did not handle ended it.
    public enum Termination: Equatable, Sendable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        public var description: String {
            switch self {
            case .exited(let status): "exited with status \(status)"
            case .signalled(let signal): "ended by signal \(signal)"
            }
        }
    }

    /// Waits for the child to end and says how (from the kernel's wait status, not from
    /// anything the child printed); nil if it still runs after `timeout` seconds.
    public func waitForTermination(timeout: TimeInterval = 10) -> Termination? {
        guard let status = waitForExit(timeout: timeout) else { return nil }
        switch process.terminationReason {
        case .exit: return .exited(status)
        case .uncaughtSignal: return .signalled(status)
        }
    }

    /// SIGTERM, then SIGKILL if it does not go within `grace` seconds.
    public func stop(grace: TimeInterval = 5) {
        guard process.isRunning else { return }
        signal(SIGTERM)
        if waitForExit(timeout: grace) == nil {
            signal(SIGKILL)
            waitForExit(timeout: 5)
        }
    }
}

public enum HarnessError: Error, CustomStringConvertible {
    case timedOut(String)
    case missingProgram(String)
    case failed(String)

    public var description: String {
        switch self {
        case .timedOut(let what): "timed out: \(what)"
        case .missingProgram(let what): what
        case .failed(let what): what
        }
    }
}
