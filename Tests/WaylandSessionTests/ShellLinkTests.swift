import Foundation
import GLibRuntime
import XCTest

@testable import WaylandSession

/// The agent's end of the link with GNOME Shell's extension, over a real socket: what the
/// extension says, read line by line; a process that is not the Shell refused before a word;
/// the greeting and the shields sent to the Shell. (`GnomeShellSessionTests` runs it with the
/// real Shell.)
final class ShellLinkTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("shell-link-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
    }

    func testEachMessageOfTheExtensionIsReadAndAnythingElseIsNot() {
        func read(_ text: String) -> ShellLink.Message? { ShellLink.message(from: Array(text.utf8)) }
        XCTAssertEqual(
            read(#"{"focused": [42, "mousepad", "", "Untitled", "7"]}"#),
            .focused(pid: 42, wmClass: "mousepad", appID: "", title: "Untitled", id: "7"))
        XCTAssertEqual(read(#"{"idle": true}"#), .idle(true))
        XCTAssertEqual(read(#"{"idle": false}"#), .idle(false))
        XCTAssertEqual(read(#"{"shown": "1280x720"}"#), .shown("1280x720"))
        XCTAssertEqual(read(#"{"pressed": "primaryButtonPressed"}"#), .pressed("primaryButtonPressed"))
        XCTAssertEqual(read(#"{"failed": "no stage"}"#), .failed("no stage"))
        XCTAssertNil(read(#"{"focused": [42, "mousepad"]}"#))
        XCTAssertNil(read(#"{"focused": ["42", "a", "b", "c", "d"]}"#))
        XCTAssertNil(read(#"{"idle": true, "shown": "1x1"}"#), "one message a line")
        XCTAssertNil(read(#"{"unknown": 1}"#))
        XCTAssertNil(read("not json"))
    }

    /// The Shell (here: a client of the test's, taken for the Shell by its pid) gets the
    /// greeting and the shield, and is heard; a connection from any other process is closed
    /// unheard.
    func testOnlyTheShellsConnectionIsHeard() throws {
        let loop = MainLoop()
        let path = folder.appendingPathComponent("shell.sock").path
        var shellPID: Int32 = -1
        let link = try ShellLink(
            path: path, mode: 0o600, loop: loop, greeting: ["idle-after": 120_000], isShell: { $0 == shellPID })
        var heard: [ShellLink.Message] = []
        var connections = 0
        link.start(connected: { connections += 1 }, closed: {}, message: { heard.append($0) })

        // Another process first: refused, and what it wrote is not heard.
        let other = try RunningProgram(path, input: #"{"idle": true}"# + "\n")
        loop.iterate(until: { other.isRunning == false }, timeout: .seconds(5))
        XCTAssertTrue(heard.isEmpty)
        XCTAssertEqual(connections, 0)
        XCTAssertEqual(other.said(), "", "the other process was told nothing")

        // The Shell: greeted, heard, and sent the shield.
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        shell.arguments = ["-c", RunningProgram.client, path]
        let input = Pipe()
        let output = Pipe()
        shell.standardInput = input
        shell.standardOutput = output
        // Its pid is known before the link hears it: the link accepts on the loop, run below.
        try shell.run()
        shellPID = shell.processIdentifier
        input.fileHandleForWriting.write(Data((#"{"focused": [7, "foot", "", "~", "3"]}"# + "\n").utf8))
        loop.iterate(until: { !heard.isEmpty }, timeout: .seconds(5))
        XCTAssertEqual(heard, [.focused(pid: 7, wmClass: "foot", appID: "", title: "~", id: "3")])
        XCTAssertEqual(connections, 1)
        link.send(["shield": ""])
        try input.fileHandleForWriting.close()
        loop.iterate(until: { !shell.isRunning }, timeout: .seconds(5))
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(said, #"{"idle-after":120000}"# + "\n" + #"{"shield":""}"# + "\n")
        link.stop()
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "the socket goes with the link")
    }

    /// The Shell gone while the agent writes to it: the link closes, and the agent goes on
    /// (a broken pipe is an error here, not a signal that ends the process).
    func testWritingToAShellThatIsGoneClosesTheLink() throws {
        let loop = MainLoop()
        let path = folder.appendingPathComponent("shell.sock").path
        let link = try ShellLink(
            path: path, mode: 0o600, loop: loop, greeting: ["idle-after": 1], isShell: { _ in true })
        var connected = false
        var closed = false
        link.start(connected: { connected = true }, closed: { closed = true }, message: { _ in })
        // A client that connects and ends at once.
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        gone.arguments = [
            "-c", "import socket, sys, time; s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); time.sleep(1)",
            path,
        ]
        try gone.run()
        loop.iterate(until: { connected }, timeout: .seconds(5))
        XCTAssertTrue(connected)
        // Gone, unread by the link (the loop does not run meanwhile).
        gone.waitUntilExit()
        for _ in 0..<3 { link.send(["shield": String(repeating: "x", count: 100_000)]) }
        XCTAssertTrue(closed)
        XCTAssertFalse(link.isConnected)
    }
}

/// A client of the link's socket (Python's): writes its standard input, then prints what it
/// was sent until the link closes.
private final class RunningProgram {
    static let client = """
        import socket, sys
        link = socket.socket(socket.AF_UNIX)
        link.connect(sys.argv[1])
        for line in sys.stdin:
            link.sendall(line.encode())
        link.shutdown(socket.SHUT_WR)
        said = b''
        while True:
            chunk = link.recv(4096)
            if not chunk:
                break
            said += chunk
        sys.stdout.write(said.decode())
        """
    private let process = Process()
    private let output = Pipe()

    init(_ path: String, input: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", Self.client, path]
        let stdin = Pipe()
        process.standardInput = stdin
        process.standardOutput = output
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
    }

    var isRunning: Bool { process.isRunning }

    func said() -> String {
        String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }
}
