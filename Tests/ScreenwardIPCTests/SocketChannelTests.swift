import Foundation
import Synchronization
import TestSupport
import XCTest

@testable import ScreenwardIPC

/// An owner that echoes `echo` requests and pushes a line when asked.
private final class EchoOwner: ServiceRequestHandler {
    static let echo = ServiceMethod<String, String>("test.echo")
    static let pushMe = ServiceMethod<String, Empty>("test.push")
    static let note = PushKind<String>("test.note")
    static let other = PushKind<String>("test.other")
    static let pushOther = ServiceMethod<String, Empty>("test.push-other")
    let disconnects = Atomic<Int>(0)

    func received(frame: Data, from peer: ServicePeer) {
        guard let head = try? FrameHead.decode(from: frame), let id = head.id else { return }
        switch head.method {
        case Self.echo.name:
            let body = Result { try Self.echo.request(from: frame).body }.mapError {
                $0 as? ServiceError ?? ServiceError(.internalFailure, "\($0)")
            }
            peer.send(Self.echo.replyFrame(id: id, body.map { "echo: \($0)" }))
        case Self.pushMe.name:
            let text = (try? Self.pushMe.request(from: frame).body) ?? "?"
            peer.send(Self.pushMe.replyFrame(id: id, .success(Empty())))
            if let line = try? Self.note.frame(text) { peer.send(line) }
        case Self.pushOther.name:
            let text = (try? Self.pushOther.request(from: frame).body) ?? "?"
            peer.send(Self.pushOther.replyFrame(id: id, .success(Empty())))
            if let line = try? Self.other.frame(text) { peer.send(line) }
        default:
            peer.send(errorLine(id: id, ServiceError(.unknownMethod, "no method \(head.method ?? "-")")))
        }
    }

    func disconnected(_ peer: ServicePeer) { disconnects.add(1, ordering: .relaxed) }
}

final class SocketChannelTests: XCTestCase {
    private func socketPath() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sw-ipc-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        return directory.appendingPathComponent("agent.sock").path
    }

    func testRequestsRepliesAndPushesOverTheSocket() throws {
        let path = try socketPath()
        let owner = EchoOwner()
        let server = try SocketServer(path: path, handler: owner)
        defer { server.close() }
        let client = ServiceClient(transport: SocketTransport(path: path), bundleIdentifier: "org.example.test")

        XCTAssertEqual(try client.call(EchoOwner.echo, "hello"), "echo: hello")
        // Replies are matched by id, whatever order the threads ask in.
        DispatchQueue.concurrentPerform(iterations: 50) { index in
            XCTAssertEqual(try? client.call(EchoOwner.echo, "\(index)"), "echo: \(index)")
        }

        let pushed = expectation(description: "push")
        client.transport.setPushReceiver { frame in
            if (try? EchoOwner.note.body(from: frame)) == "ding" { pushed.fulfill() }
        }
        _ = try client.call(EchoOwner.pushMe, "ding")
        wait(for: [pushed], timeout: 5)

        XCTAssertThrowsError(try client.call(ServiceMethod<Empty, Empty>("test.nothing"), Empty())) { error in
            XCTAssertEqual((error as? ServiceError)?.code, .unknownMethod)
        }
    }

    /// A monitor and shield extensions share a connection: each push kind may have a receiver of its own.
    func testPushesGoToTheReceiverForTheirKind() throws {
        let path = try socketPath()
        let server = try SocketServer(path: path, handler: EchoOwner())
        defer { server.close() }
        let client = ServiceClient(transport: SocketTransport(path: path), bundleIdentifier: "org.example.test")
        let received = Mutex<[String]>([])
        let both = expectation(description: "both pushes")
        both.expectedFulfillmentCount = 2
        client.transport.setPushReceiver { frame in
            received.withLock { $0.append("any: \((try? EchoOwner.note.body(from: frame)) ?? "?")") }
            both.fulfill()
        }
        client.transport.setPushReceiver(forKind: EchoOwner.other.name) { frame in
            received.withLock { $0.append("other: \((try? EchoOwner.other.body(from: frame)) ?? "?")") }
            both.fulfill()
        }
        _ = try client.call(EchoOwner.pushOther, "one")
        _ = try client.call(EchoOwner.pushMe, "two")
        wait(for: [both], timeout: 5)
        XCTAssertEqual(received.withLock { $0 }, ["other: one", "any: two"], "in order, each to its receiver")
    }

    func testNoAgentIsAClearError() throws {
        let client = ServiceClient(
            transport: SocketTransport(path: try socketPath()), bundleIdentifier: "org.example.test")
        XCTAssertThrowsError(try client.call(EchoOwner.echo, "x")) { error in
            XCTAssertEqual((error as? ServiceError)?.code, .agentUnavailable)
            XCTAssertTrue("\(error)".contains("not running"), "\(error)")
        }
    }

    func testAClientWithoutABundleIdentifierIsToldHowToDeclareOne() throws {
        let client = ServiceClient(transport: SocketTransport(path: try socketPath()), bundleIdentifier: nil)
        XCTAssertThrowsError(try client.call(EchoOwner.echo, "x")) { error in
            XCTAssertTrue("\(error)".contains("SCREENWARD_BUNDLE_ID"), "\(error)")
        }
        let bad = ServiceClient(transport: SocketTransport(path: try socketPath()), bundleIdentifier: "org/../evil")
        XCTAssertThrowsError(try bad.call(EchoOwner.echo, "x"))
    }

    func testTheClientReconnectsAfterTheAgentRestarts() throws {
        let path = try socketPath()
        let owner = EchoOwner()
        var server = try SocketServer(path: path, handler: owner)
        let client = ServiceClient(transport: SocketTransport(path: path), bundleIdentifier: "org.example.test")
        XCTAssertEqual(try client.call(EchoOwner.echo, "one"), "echo: one")
        server.close()
        server = try SocketServer(path: path, handler: owner)
        defer { server.close() }
        // The first call may find the old connection closing; a call after it succeeds.
        let answer = (try? client.call(EchoOwner.echo, "two")) ?? (try? client.call(EchoOwner.echo, "two"))
        XCTAssertEqual(answer, "echo: two")
    }

    /// A line that is not a request gets a reply saying what was wrong, then end of file:
    /// read as such, not inferred from a call that gave up.
    func testALineThatIsNotARequestIsToldWhyThenDisconnected() throws {
        let path = try socketPath()
        let owner = EchoOwner()
        let server = try SocketServer(path: path, handler: owner)
        defer { server.close() }

        // A request gets its reply and the connection stays open: so an end seen below
        // is the refusal's, and `end(within:)` can tell an open connection from a closed one.
        let polite = try RawLineConnection(path: path)
        try polite.send(line: #"{"id":1,"client":"org.example.test","method":"test.echo","body":"hi"}"#)
        let reply = try JSONDecoder().decode(ReplyFrame<String>.self, from: try XCTUnwrap(polite.nextLine()))
        XCTAssertEqual(reply.id, 1)
        XCTAssertEqual(reply.reply, "echo: hi")
        XCTAssertNil(polite.end(within: 0.5), "a connection that sent a request stays open")

        let cases: [(line: [UInt8], id: UInt64?, problem: String)] = [
            (Array("not json at all\n".utf8), nil, "the line is not JSON"),
            ([0x7B, 0xFF, 0xFE, 0x7D, 0x0A], nil, "not UTF-8"),
            (
                Array(#"[{"id":2,"client":"org.example.test","method":"test.echo","body":"x"}]"#.utf8) + [0x0A], nil,
                "a JSON array, not an object"
            ),
            (Array(#"{"client":"org.example.test","method":"test.echo","body":"x"}"#.utf8) + [0x0A], nil, #"no "id""#),
            (
                Array(#"{"id":-3,"client":"org.example.test","method":"test.echo","body":"x"}"#.utf8) + [0x0A], nil,
                #""id" is not a whole number"#
            ),
            (Array(#"{"id":4,"client":"org.example.test","body":"x"}"#.utf8) + [0x0A], 4, #"no "method""#),
            (
                Array(#"{"id":5,"client":"org.example.test","method":7,"body":"x"}"#.utf8) + [0x0A], 5,
                #""method" is not a string"#
            ),
            // No newline: the agent stops reading at the limit.
            (
                Array(repeating: UInt8(ascii: "x"), count: Frame.maximumLength + 10), nil,
                "longer than the limit of \(Frame.maximumLength) bytes"
            ),
        ]
        for (line, id, problem) in cases {
            let what = String(decoding: line.prefix(60), as: UTF8.self)
            let rogue = try RawLineConnection(path: path)
            try rogue.send(line)
            let answer = try XCTUnwrap(rogue.nextLine(), "no reply to \(what)")
            let refusal = try JSONDecoder().decode(RefusalFrame.self, from: answer)
            XCTAssertEqual(refusal.id, id, what)
            XCTAssertEqual(refusal.error.code, .malformedMessage, what)
            XCTAssertTrue(refusal.error.message.contains(problem), "\(what): \(refusal.error.message)")
            XCTAssertTrue(refusal.error.message.contains("one JSON object per line"), refusal.error.message)
            // Closed by the agent well before its lingering limit, cleanly: no reset.
            XCTAssertEqual(rogue.end(within: 1.5), .endOfFile, what)
            XCTAssertNil(rogue.nextLine(timeout: 0), "nothing after the refusal: \(what)")
        }

        // The client library hears the refusal's reason, not only that the connection closed.
        let rogue = SocketTransport(path: path)
        XCTAssertThrowsError(
            try rogue.exchange(requestID: 1, frame: Data("not json at all".utf8), timeout: .seconds(5))
        ) { error in
            XCTAssertEqual((error as? ServiceError)?.code, .malformedMessage, "\(error)")
        }

        // Only those connections ended.
        XCTAssertNil(polite.end(within: 0), "the polite connection is still open")
        let client = ServiceClient(transport: SocketTransport(path: path), bundleIdentifier: "org.example.test")
        XCTAssertEqual(try client.call(EchoOwner.echo, "still here"), "echo: still here")
    }
}
