import Foundation
import ScreenwardCore
import ScreenwardIPC

/// Reads the extension's messages and relays its reports, one at a time, in order.
final class WebHostRelay {
    /// Chromium passes the extension's origin, Firefox the manifest's path and the extension's ID.
    let browser: String
    /// The browser's main process: it starts the host and owns the browser's windows.
    let browserPID: Int32
    private let client = ServiceClient.standard(bundleIdentifier: BrowserInstallation.hostBundleIdentifier)
    private var decoder = NativeMessaging.Decoder()
    /// The report the owner has not taken yet (it was away): sent again with the next message.
    private var unsent: BrowserWindowsReport?
    private var ownerAway = false
    private var lastRefusal: String?

    init(arguments: [String], browserPID: Int32) {
        browser =
            arguments.contains { $0.hasPrefix("chrome-extension://") }
            ? "chromium"
            : arguments.contains(BrowserInstallation.firefoxExtensionID) ? "firefox" : "an unknown browser"
        self.browserPID = browserPID
    }

    /// Writes without Foundation's trap on a failed write (a browser gone away).
    static func write(_ handle: FileHandle, _ data: Data) {
        try? handle.write(contentsOf: data)
    }

    func log(_ line: String) {
        Self.write(
            FileHandle.standardError, Data("screenward-web-host (\(browser), pid \(browserPID)): \(line)\n".utf8))
    }

    func run() {
        log("started")
        // What to shield, and the shield pages' looks and closing, come from the owner
        // unasked; they go on to the extension. (Pushes come one at a time, in order: the
        // standard output has one writer.)
        let prefix = "screenward-web-host (\(browser), pid \(browserPID))"
        let forward = { @Sendable (what: String, message: () throws -> Data) in
            do {
                guard let framed = NativeMessaging.frame(try message()) else {
                    return Self.write(
                        FileHandle.standardError,
                        Data("\(prefix): \(what) is too long for one message to the browser; dropped\n".utf8))
                }
                Self.write(FileHandle.standardOutput, framed)
            } catch {
                Self.write(FileHandle.standardError, Data("\(prefix): dropped the owner's \(what) (\(error))\n".utf8))
            }
        }
        client.transport.setPushReceiver(forKind: WebHostMethods.shields.name) { frame in
            forward("shields") { try ExtensionMessage.encodeShields(try WebHostMethods.shields.body(from: frame)) }
        }
        client.transport.setPushReceiver(forKind: WebHostMethods.shieldLook.name) { frame in
            forward("shield look") {
                try ExtensionMessage.encode(kind: "shield-look", try WebHostMethods.shieldLook.body(from: frame))
            }
        }
        client.transport.setPushReceiver(forKind: WebHostMethods.shieldClose.name) { frame in
            forward("shield close") {
                try ExtensionMessage.encode(kind: "shield-close", try WebHostMethods.shieldClose.body(from: frame))
            }
        }
        while true {
            // What the pipe holds now (`read(upToCount:)` would wait for the whole count, and a
            // message may be a few bytes); empty: the browser closed the port.
            let chunk = FileHandle.standardInput.availableData
            if chunk.isEmpty { break }
            for event in decoder.feed(chunk) { take(event) }
        }
        if decoder.isInsideAMessage { log("the browser closed the port inside a message; it is dropped") }
        log("the browser closed the port")
    }

    private func take(_ event: NativeMessaging.Event) {
        switch event {
        case .dropped(let why):
            log("dropped \(why)")
        case .message(let data):
            do {
                switch try ExtensionMessage.decode(data) {
                case .hello(let version):
                    log("the extension \(version) is connected")
                    // A report of no windows registers this host with the owner, which answers
                    // with its shields: the extension reports its tabs once they are applied.
                    send(unsent ?? BrowserWindowsReport(browserPID: browserPID, focusedWindow: nil, windows: []))
                case .shield(let event):
                    do {
                        _ = try client.call(WebHostMethods.shieldEvent, event)
                    } catch {
                        log("the shield page's \(event.kind) did not reach the state owner (\(error))")
                    }
                case .problem(let text):
                    log("the extension: \(text)")
                case .windows(let focused, let windows):
                    send(BrowserWindowsReport(browserPID: browserPID, focusedWindow: focused, windows: windows))
                }
            } catch {
                log("dropped \(error)")
            }
        }
    }

    private func send(_ report: BrowserWindowsReport) {
        do {
            _ = try client.call(WebHostMethods.windows, report)
            if ownerAway { log("the state owner answers again") }
            ownerAway = false
            unsent = nil
        } catch let error as ServiceError where error.code != .agentUnavailable {
            // The owner read it and said no: sending it again would say no again (and saying
            // so once is enough).
            if lastRefusal != error.message { log("the state owner refused the report: \(error)") }
            lastRefusal = error.message
            unsent = nil
        } catch {
            if !ownerAway { log("the report did not reach the state owner (\(error)); it goes with the next change") }
            ownerAway = true
            unsent = report
        }
    }
}
