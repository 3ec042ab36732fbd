import Foundation
import ScreenwardIPC
import XCTest

final class NativeMessagingTests: XCTestCase {
    private func framed(_ text: String) -> Data { NativeMessaging.frame(Data(text.utf8))! }

    func testMessagesComeOutWholeHoweverTheBytesArrive() {
        let stream = framed(#"{"a":1}"#) + framed(#"{"b":"ü"}"#) + framed("x")
        for chunk in [1, 2, 3, 5, 7, stream.count] {
            var decoder = NativeMessaging.Decoder()
            var events: [NativeMessaging.Event] = []
            var start = 0
            while start < stream.count {
                events += decoder.feed(stream[start..<min(start + chunk, stream.count)])
                start += chunk
            }
            XCTAssertEqual(
                events,
                [.message(Data(#"{"a":1}"#.utf8)), .message(Data(#"{"b":"ü"}"#.utf8)), .message(Data("x".utf8))],
                "chunks of \(chunk)")
            XCTAssertFalse(decoder.isInsideAMessage)
        }
    }

    func testTheLengthIsLittleEndian() {
        XCTAssertEqual([UInt8](NativeMessaging.frame(Data(repeating: 65, count: 258))!.prefix(4)), [2, 1, 0, 0])
    }

    func testAnOverlongMessageIsSkippedAndTheStreamStaysInStep() {
        var decoder = NativeMessaging.Decoder()
        let huge = NativeMessaging.maximumLength + 1
        var events = decoder.feed([UInt8(huge & 0xff), UInt8(huge >> 8 & 0xff), UInt8(huge >> 16 & 0xff), 0])
        // The body arrives in pieces, then a good message.
        for _ in 0..<16 { events += decoder.feed(Data(repeating: 0x7b, count: huge / 16)) }
        events += decoder.feed(Data(repeating: 0x7b, count: huge % 16))
        events += decoder.feed(framed("{}"))
        XCTAssertEqual(
            events,
            [
                .dropped("a message of \(huge) bytes (more than \(NativeMessaging.maximumLength))"),
                .message(Data("{}".utf8)),
            ])
        XCTAssertNil(NativeMessaging.frame(Data(count: huge)), "the browser takes at most 1 MiB")
    }

    func testAnEmptyMessageIsDroppedAndATruncatedOneIsSeen() {
        var decoder = NativeMessaging.Decoder()
        XCTAssertEqual(
            decoder.feed([0, 0, 0, 0] + framed("1")), [.dropped("an empty message"), .message(Data("1".utf8))])
        XCTAssertEqual(decoder.feed(framed("12345").prefix(6)), [])
        XCTAssertTrue(decoder.isInsideAMessage)
    }

    func testAFourGigabyteLengthIsDroppedNotAllocated() {
        var decoder = NativeMessaging.Decoder()
        XCTAssertEqual(
            decoder.feed([0xff, 0xff, 0xff, 0xff]),
            [.dropped("a message of 4294967295 bytes (more than \(NativeMessaging.maximumLength))")])
        XCTAssertTrue(decoder.isInsideAMessage, "it skips what the length said")
    }
}
