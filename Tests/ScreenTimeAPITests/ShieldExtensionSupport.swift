@_spi(Screenward) import DeviceActivity
import Foundation
import GLibRuntime
@_spi(Screenward) import ManagedSettings
@_spi(Screenward) import ManagedSettingsUI
import ScreenwardCore
import ScreenwardIPC
import XCTest

/// A data source that writes down what it was asked and answers with a title naming it.
final class RecordingDataSource: ShieldConfigurationDataSource {
    private var log: Recorder<ShieldRequestSubject>?

    required init() {}

    init(log: Recorder<ShieldRequestSubject>) {
        self.log = log
    }

    static func title(_ text: String) -> ShieldConfiguration {
        ShieldConfiguration(
            backgroundBlurStyle: .systemThickMaterialDark, title: .init(text: text, color: .white),
            secondaryButtonLabel: .init(text: "Ask a guardian", color: .systemBlue))
    }

    override func configuration(shielding application: Application) -> ShieldConfiguration {
        log?.append(.application(application))
        return Self.title("app \(application.localizedDisplayName ?? "?")")
    }

    override func configuration(shielding application: Application, in category: ActivityCategory)
        -> ShieldConfiguration
    {
        log?.append(.applicationInCategory(application, category))
        return Self.title("app \(application.localizedDisplayName ?? "?") in \(category.localizedDisplayName ?? "?")")
    }

    override func configuration(shielding webDomain: WebDomain) -> ShieldConfiguration {
        log?.append(.webDomain(webDomain))
        return Self.title("site \(webDomain.domain ?? "?")")
    }

    override func configuration(shielding webDomain: WebDomain, in category: ActivityCategory) -> ShieldConfiguration {
        log?.append(.webDomainInCategory(webDomain, category))
        return Self.title("site \(webDomain.domain ?? "?") in \(category.localizedDisplayName ?? "?")")
    }
}

/// One call of a shield action delegate: which method (by token kind), the token and the action.
struct HeardAction: Hashable, Sendable {
    var method: String
    var token: String
    var action: ShieldAction
}

/// Completion handlers a test calls when it likes (as a delegate that waits for a guardian would).
final class HeldCompletions: @unchecked Sendable {
    private let lock = NSLock()
    private var handlers: [(ShieldActionResponse) -> Void] = []

    func hold(_ handler: @escaping (ShieldActionResponse) -> Void) {
        lock.withLock { handlers.append(handler) }
    }

    var count: Int { lock.withLock { handlers.count } }

    /// Calls the oldest handler held (on the caller's thread) and forgets it.
    func answer(_ response: ShieldActionResponse) {
        let handler = lock.withLock { handlers.isEmpty ? nil : handlers.removeFirst() }
        handler?(response)
    }
}

/// A delegate that writes down each call and answers as told: at once with `respond`'s
/// response (twice when `answerTwice`), or, when `respond` gives nil, whenever the test
/// calls the handler it holds.
final class RecordingActionDelegate: ShieldActionDelegate {
    private var log: Recorder<HeardAction>?
    private var respond: @Sendable (ShieldAction) -> ShieldActionResponse? = { _ in nil }
    private var held: HeldCompletions?
    private var answerTwice = false

    required init() {}

    init(
        log: Recorder<HeardAction>, held: HeldCompletions? = nil, answerTwice: Bool = false,
        respond: @escaping @Sendable (ShieldAction) -> ShieldActionResponse?
    ) {
        self.log = log
        self.held = held
        self.answerTwice = answerTwice
        self.respond = respond
    }

    private func note(
        _ method: String, _ token: String, _ action: ShieldAction,
        _ completionHandler: @escaping (ShieldActionResponse) -> Void
    ) {
        log?.append(HeardAction(method: method, token: token, action: action))
        guard let response = respond(action) else {
            held?.hold(completionHandler)
            return
        }
        completionHandler(response)
        if answerTwice { completionHandler(response == .close ? .none : .close) }
    }

    override func handle(
        action: ShieldAction, for application: ApplicationToken,
        completionHandler: @escaping (ShieldActionResponse) -> Void
    ) {
        note("application", application.opaqueValue, action, completionHandler)
    }

    override func handle(
        action: ShieldAction, for webDomain: WebDomainToken, completionHandler: @escaping (ShieldActionResponse) -> Void
    ) {
        note("webDomain", webDomain.opaqueValue, action, completionHandler)
    }

    override func handle(
        action: ShieldAction, for category: ActivityCategoryToken,
        completionHandler: @escaping (ShieldActionResponse) -> Void
    ) {
        note("category", category.opaqueValue, action, completionHandler)
    }
}

/// An app's shield extension process: its own connection to the owner.
struct ShieldExtensionProcess {
    let transport: DirectTransport
    let client: ServiceClient

    /// The process exits.
    func exit() { transport.disconnect() }
}

extension InProcessWorld {
    /// A new process of `bundleID` with its own connection (attach extensions to its client).
    func process(_ bundleID: String) -> ShieldExtensionProcess {
        let transport = DirectTransport(handler: host)
        return ShieldExtensionProcess(
            transport: transport, client: ServiceClient(transport: transport, bundleIdentifier: bundleID))
    }

    /// Starts `bundleID`'s data source in a process of its own, as `ShieldConfigurationDataSource.main()` would.
    func startDataSource(_ bundleID: String, log: Recorder<ShieldRequestSubject>) throws -> ShieldExtensionProcess {
        let process = process(bundleID)
        try ShieldConfigurationAttachment.attach(RecordingDataSource(log: log), client: process.client)
        return process
    }

    /// Every answer the host hands to the shield presenter, from now on.
    func recordShieldAnswers() -> Recorder<ShieldAnswer> {
        let answers = Recorder<ShieldAnswer>()
        host.onShieldAnswer = { answers.append($0) }
        return answers
    }

    func webDomainToken(_ domain: String) -> WebDomainToken { directory.minter.webDomainToken(forDomain: domain) }

    /// Chess as the presenter names it, shielded for itself or because of the Game category.
    func chess(inCategory: Bool = false) -> ShieldedItem {
        inCategory
            ? .applicationInCategory(
                applicationToken("chess.desktop"), desktopID: "chess.desktop", name: "Chess",
                category: categoryToken("Game"),
                categoryName: "Games")
            : .application(applicationToken("chess.desktop"), desktopID: "chess.desktop", name: "Chess")
    }
}

extension XCTestCase {
    /// Waits (up to five seconds) until `condition` holds, running the owner's loop (the
    /// test's thread is that loop: lines from a socket reach the owner through it).
    func waitUntil(_ what: String, _ condition: () -> Bool) {
        let deadline = Date().addingTimeInterval(5)
        while true {
            MainLoop.runPending()
            if condition() { return }
            guard Date() < deadline else { return XCTFail("timed out waiting for \(what)") }
            Thread.sleep(forTimeInterval: 0.01)
        }
    }
}
