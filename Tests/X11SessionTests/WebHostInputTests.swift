import Foundation
import ScreenwardCore
import ScreenwardIPC
import SessionHarness
import XCTest

/// `screenward-web-host` as a browser starts it, fed what no honest extension sends: each
/// bad message is a line in its log and is dropped, the stream stays in step, and the good
/// messages after it still reach the agent.
final class WebHostInputTests: XSessionTestCase {
    private func framed(_ text: String) -> Data { NativeMessaging.frame(Data(text.utf8))! }

    private func windows(_ url: String, title: String = "T") -> String {
        #"""
        {"kind":"windows","focused":1,"windows":[{"id":1,"incognito":false,\#
        "tab":{"url":\#(String(reflecting: url)),"title":\#(String(reflecting: title))}}]}
        """#
    }

    func testHostileMessagesAreDroppedWithALogLineAndTheRestGoesThrough() throws {
        let session = try startXSession()
        let agent = try AgentRun(
            display: session.display, home: home, environment: try catalogEnvironment(entries: [:]))
        defer { agent.stop() }
        let host = try ChildProcess(
            try ProjectPrograms.url(of: "screenward-web-host"),
            ["chrome-extension://abcdefghijklmnopabcdefghijklmnop/"], environment: agent.environment)
        var clean = framed(#"{"kind":"hello","extension":"1.1.0"}"#)
        clean += framed("not json")
        clean += framed(#"{"kind":"launch-missiles"}"#)
        clean += framed(#"{"kind":"windows","windows":[{"id":"x"}]}"#)
        clean += framed(#"{"kind":"windows","windows":[{"id":1},{"id":1}]}"#)
        clean += Data([0, 0, 0, 0])
        clean += framed(
            #"{"kind":"windows","windows":[{"id":1,"tab":{"url":"https://a.test/","title":""#
                + String(repeating: "t", count: 2000) + #""}}]}"#)
        // Pages of no website, addresses, ports, international and Punycode names: all taken.
        for url in [
            "file:///etc/passwd", "about:blank", "data:text/html,<b>x</b>", "http://127.0.0.1:8080/", "http://[::1]:9/",
            "https://www.bücher.de/", "https://xn--bcher-kva.de/", "https://-bad-.test/",
        ] {
            clean += framed(windows(url))
        }
        clean += framed(windows("https://www.videos.test/", title: "Last"))
        host.write(clean)
        host.closeInput()
        XCTAssertEqual(host.waitForExit(timeout: 30), 0, host.standardError)
        let log = host.standardError
        for expected in [
            "the extension 1.1.0 is connected", "dropped not a message of Screenward's extension (not JSON)",
            "dropped a message of unknown kind launch-missiles",
            "windows.0.id has the wrong type", "dropped window 1 named twice", "dropped an empty message",
            "dropped a tab title of 2000 characters",
            "the browser closed the port",
        ] {
            XCTAssertTrue(log.contains(expected), "no \"\(expected)\" in: \(log)")
        }
        XCTAssertFalse(
            log.contains("refused") || log.contains("did not reach"), "every well-formed report was taken: \(log)")
    }

    func testAnOverlongMessageIsSkippedUnreadAndATruncatedOneEndsTheHostQuietly() throws {
        let host = try ChildProcess(
            try ProjectPrograms.url(of: "screenward-web-host"),
            ["chrome-extension://abcdefghijklmnopabcdefghijklmnop/"],
            environment: [
                "SCREENWARD_HOME": home.path, "SCREENWARD_DAEMON_SOCKET": AgentRun.noSystemDaemon(beside: home),
            ])
        let huge = NativeMessaging.maximumLength + 10
        var stream = Data([UInt8(huge & 0xff), UInt8(huge >> 8 & 0xff), UInt8(huge >> 16 & 0xff), 0])
        stream += Data(repeating: 0x41, count: huge)
        stream += framed(#"{"kind":"hello","extension":"after"}"#)
        stream += Data([50, 0, 0, 0]) + Data("{\"kind\":".utf8)  // the browser goes away mid-message
        host.write(stream)
        host.closeInput()
        XCTAssertEqual(host.waitForExit(timeout: 30), 0, host.standardError)
        let log = host.standardError
        XCTAssertTrue(log.contains("dropped a message of \(huge) bytes"), log)
        XCTAssertTrue(log.contains("the extension after is connected"), "the stream stayed in step: \(log)")
        XCTAssertTrue(log.contains("closed the port inside a message"), log)
    }

    /// A message is taken as soon as it is whole, while the browser keeps the port open (the
    /// host must not wait for more bytes than the pipe holds).
    func testAMessageIsTakenWhileThePortStaysOpen() throws {
        let host = try ChildProcess(
            try ProjectPrograms.url(of: "screenward-web-host"),
            ["chrome-extension://abcdefghijklmnopabcdefghijklmnop/"],
            environment: [
                "SCREENWARD_HOME": home.path, "SCREENWARD_DAEMON_SOCKET": AgentRun.noSystemDaemon(beside: home),
            ])
        host.write(framed(#"{"kind":"hello","extension":"open"}"#))
        let deadline = Date().addingTimeInterval(10)
        while !host.standardError.contains("the extension open is connected"), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
        }
        XCTAssertTrue(host.standardError.contains("the extension open is connected"), host.standardError)
        host.closeInput()
        XCTAssertEqual(host.waitForExit(timeout: 10), 0)
    }
}
