import Foundation
import XCTest

@testable import ScreenwardIPC

/// The routers, driven with request lines as a client would write them.
final class ServiceRoutesTests: XCTestCase {
    private final class Counter {
        var total = 0
        var notes: [String] = []
    }

    private struct Request {
        var seen: [String] = []
    }

    private struct Refused: Error {}

    private static let add = ServiceMethod<Int, Int>("test.add")
    private static let name = ServiceMethod<Empty, String>("test.name")
    private static let refuse = ServiceMethod<Empty, Empty>("test.refuse")
    private static let slow = ServiceMethod<Int, Int>("test.slow")
    private static let note = PushKind<String>("test.note")

    private static func errors(_ error: any Error) -> ServiceError {
        error as? ServiceError ?? ServiceError(.invalidArgument, "refused: \(type(of: error))")
    }

    private static let routes = ServiceRoutes<Counter, Request>(
        [
            .on(add, errors: errors) { counter, request, frame in
                request.seen.append("add from \(frame.client)")
                counter.total += frame.body
                return counter.total
            },
            .on(name, errors: errors) { _, _, frame in frame.client },
            .on(refuse, errors: errors) { _, _, _ in throw Refused() },
            .on(slow, errors: errors) { _, request, frame, pending in
                guard frame.body >= 0 else { throw ServiceError(.invalidArgument, "a negative number") }
                request.seen.append("later \(pending.id)")
            },
        ],
        unknown: { ServiceError(.unknownMethod, "no \($0)") })

    private func route(_ line: Data, _ counter: Counter = Counter()) -> (
        ServiceRoutes<Counter, Request>.Routed?, Request
    ) {
        var request = Request()
        return (Self.routes.reply(to: line, by: counter, &request), request)
    }

    func testAMethodIsAnsweredWithItsOwnTypes() throws {
        let counter = Counter()
        counter.total = 40
        let (routed, request) = route(try Self.add.requestFrame(id: 7, client: "org.example.app", 2), counter)
        let line = try XCTUnwrap(routed?.line)
        XCTAssertEqual(try Self.add.reply(from: line), 42)
        XCTAssertEqual(try Frame.decode(ReplyFrame<Int>.self, from: line).id, 7)
        XCTAssertNil(routed?.failure)
        XCTAssertEqual(request.seen, ["add from org.example.app"])
        XCTAssertEqual(counter.total, 42)
        XCTAssertEqual(
            try Self.name.reply(
                from: XCTUnwrap(route(try Self.name.requestFrame(id: 1, client: "c", Empty())).0?.line)), "c")
    }

    func testAnUnknownMethodIsAnErrorReply() throws {
        let line = try ServiceMethod<Int, Int>("test.nothing").requestFrame(id: 3, client: "c", 1)
        let routed = try XCTUnwrap(route(line).0)
        XCTAssertThrowsError(try Self.add.reply(from: XCTUnwrap(routed.line))) { error in
            XCTAssertEqual((error as? ServiceError)?.code, .unknownMethod)
            XCTAssertEqual((error as? ServiceError)?.message, "no test.nothing")
        }
        XCTAssertEqual(Self.routes.methods, [Self.add.name, Self.name.name, Self.refuse.name, Self.slow.name])
        XCTAssertFalse(Self.routes.answers("test.nothing"))
    }

    func testABodyOfTheWrongShapeIsAMalformedMessage() throws {
        let line = try ServiceMethod<String, Int>(Self.add.name).requestFrame(id: 4, client: "c", "two")
        let counter = Counter()
        let routed = try XCTUnwrap(route(line, counter).0)
        XCTAssertThrowsError(try Self.add.reply(from: XCTUnwrap(routed.line))) { error in
            XCTAssertEqual((error as? ServiceError)?.code, .malformedMessage)
        }
        XCTAssertEqual(counter.total, 0)
    }

    func testAThrownErrorIsMappedAndKept() throws {
        let routed = try XCTUnwrap(route(try Self.refuse.requestFrame(id: 5, client: "c", Empty())).0)
        XCTAssertTrue(routed.failure is Refused)
        XCTAssertThrowsError(try Self.refuse.reply(from: XCTUnwrap(routed.line))) { error in
            XCTAssertEqual(error as? ServiceError, ServiceError(.invalidArgument, "refused: Refused"))
        }
    }

    func testALineWithoutIdOrMethodIsNotAnswered() throws {
        XCTAssertNil(route(Data("{\"method\":\"test.add\",\"client\":\"c\",\"body\":1}".utf8)).0)
        XCTAssertNil(route(Data("{\"id\":1}".utf8)).0)
        XCTAssertNil(route(Data("not json".utf8)).0)
    }

    func testALaterReplyIsTheHandlersToGive() throws {
        let (routed, request) = route(try Self.slow.requestFrame(id: 9, client: "c", 5))
        XCTAssertNil(try XCTUnwrap(routed).line)
        XCTAssertEqual(request.seen, ["later 9"])
        // Refused before it is taken on: answered at once.
        let refused = try XCTUnwrap(route(try Self.slow.requestFrame(id: 10, client: "c", -1)).0)
        XCTAssertThrowsError(try Self.slow.reply(from: XCTUnwrap(refused.line))) { error in
            XCTAssertEqual((error as? ServiceError)?.message, "a negative number")
        }
    }

    func testAPendingReplyIsALineOfItsMethodsReplyType() throws {
        let pending = PendingReply(id: 11, method: Self.slow)
        XCTAssertEqual(try Self.slow.reply(from: pending.line(.success(6))), 6)
        XCTAssertEqual(try Frame.decode(ReplyFrame<Int>.self, from: pending.line(.success(6))).id, 11)
    }

    func testPushesReachTheirHandlerDecoded() throws {
        let pushes = PushRoutes<Counter, Int>([
            .on(Self.note) { counter, count, text in
                counter.notes.append(text)
                count += 1
            }
        ])
        let counter = Counter()
        var count = 0
        try pushes.deliver(try Self.note.frame("hello"), kind: Self.note.name, to: counter, &count)
        XCTAssertEqual(counter.notes, ["hello"])
        XCTAssertEqual(count, 1)
        XCTAssertThrowsError(try pushes.deliver(Data("{}".utf8), kind: "test.other", to: counter, &count)) { error in
            XCTAssertEqual(error as? PushRouteError, .unknownKind("test.other"))
        }
        let wrongShape = try PushKind<Int>(Self.note.name).frame(3)
        XCTAssertThrowsError(try pushes.deliver(wrongShape, kind: Self.note.name, to: counter, &count))
        XCTAssertEqual(counter.notes, ["hello"])
    }
}
