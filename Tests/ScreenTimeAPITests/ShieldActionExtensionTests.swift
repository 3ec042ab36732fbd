@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ManagedSettings
@_spi(Screenward) import ManagedSettingsUI
import ScreenwardCore
import ScreenwardIPC
import XCTest

/// A button pressed on a shield reaches the action delegate of the app whose store put
/// the shield up, by token kind; its response reaches the shield presenter once.
final class ShieldActionExtensionTests: XCTestCase {
    private func authorizedWorld(_ bundleID: String = "org.example.focus") async throws -> (
        InProcessWorld, FamilyActivitySelection
    ) {
        let world = try InProcessWorld(test: self)
        world.use(bundleID)
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let picked = try world.pick(applications: ["chess.desktop"], categories: ["Game"], webDomains: ["example.com"])
        return (world, picked)
    }

    /// A request sent as is (from synchronous code, so the blocking call is used).
    private func send<Request, Reply>(
        _ client: ServiceClient, _ method: ServiceMethod<Request, Reply>, _ request: Request
    ) throws -> Reply {
        try client.call(method, request)
    }

    func testEachButtonReachesTheHandlerForItsTokenKind() async throws {
        let (world, picked) = try await authorizedWorld()
        let heard = Recorder<HeardAction>()
        let process = world.process("org.example.focus")
        try ShieldActionAttachment.attach(
            RecordingActionDelegate(log: heard) { action in action == .primaryButtonPressed ? .close : .defer },
            client: process.client)
        let answers = world.recordShieldAnswers()

        let site = ShieldedItem.webDomain(world.webDomainToken("example.com"), domain: "example.com")
        let siteInGames = ShieldedItem.webDomainInCategory(
            world.webDomainToken("example.com"), domain: "example.com", category: world.categoryToken("Game"),
            categoryName: "Games")
        var ids: [ShieldRequestID] = []
        for (action, item) in [
            (ShieldAction.primaryButtonPressed, world.chess()), (.secondaryButtonPressed, world.chess()),
            (.primaryButtonPressed, world.chess(inCategory: true)), (.secondaryButtonPressed, site),
            (.primaryButtonPressed, siteInGames),
        ] {
            ids.append(
                try XCTUnwrap(world.host.requestShieldAction(owner: "org.example.focus", action: action, item: item)))
        }
        let (app, games, domain) = (
            picked.applicationTokens.first!.opaqueValue, picked.categoryTokens.first!.opaqueValue,
            picked.webDomainTokens.first!.opaqueValue
        )
        XCTAssertEqual(
            heard.all,
            [
                HeardAction(method: "application", token: app, action: .primaryButtonPressed),
                HeardAction(method: "application", token: app, action: .secondaryButtonPressed),
                HeardAction(method: "category", token: games, action: .primaryButtonPressed),
                HeardAction(method: "webDomain", token: domain, action: .secondaryButtonPressed),
                HeardAction(method: "category", token: games, action: .primaryButtonPressed),
            ])
        XCTAssertEqual(
            answers.all,
            [
                .action(ids[0], .close), .action(ids[1], .defer), .action(ids[2], .close), .action(ids[3], .defer),
                .action(ids[4], .close),
            ])
        XCTAssertEqual(Set(ids).count, 5)
    }

    func testEveryResponseComesBack() async throws {
        let (world, _) = try await authorizedWorld()
        let answers = world.recordShieldAnswers()
        for response in ShieldActionResponse.allCases {
            let process = world.process("org.example.focus")
            try ShieldActionAttachment.attach(
                RecordingActionDelegate(log: Recorder()) { _ in response }, client: process.client)
            let id = try XCTUnwrap(
                world.host.requestShieldAction(
                    owner: "org.example.focus", action: .primaryButtonPressed, item: world.chess()))
            // Asking for access is `.defer` to the presenter (the owner asks the guardians).
            XCTAssertEqual(answers.all.last, .action(id, response == .askForAccess ? .defer : response))
            process.exit()
        }
        XCTAssertEqual(answers.all.count, ShieldActionResponse.allCases.count)
    }

    func testTheBuiltInHandlersAnswerWhenTheAppOverridesNothing() async throws {
        let (world, _) = try await authorizedWorld()
        let answers = world.recordShieldAnswers()
        try ShieldActionAttachment.attach(ShieldActionDelegate(), client: world.process("org.example.focus").client)
        let primary = try XCTUnwrap(
            world.host.requestShieldAction(
                owner: "org.example.focus", action: .primaryButtonPressed, item: world.chess()))
        let secondary = try XCTUnwrap(
            world.host.requestShieldAction(
                owner: "org.example.focus", action: .secondaryButtonPressed, item: world.chess()))
        XCTAssertEqual(answers.all, [.action(primary, .close), .action(secondary, .none)])
    }

    func testACompletionHandlerCalledTwiceCountsOnce() async throws {
        let (world, _) = try await authorizedWorld()
        let answers = world.recordShieldAnswers()
        try ShieldActionAttachment.attach(
            RecordingActionDelegate(log: Recorder(), answerTwice: true) { _ in .defer },
            client: world.process("org.example.focus").client)
        let id = try XCTUnwrap(
            world.host.requestShieldAction(
                owner: "org.example.focus", action: .primaryButtonPressed, item: world.chess()))
        XCTAssertEqual(answers.all, [.action(id, .defer)])
        XCTAssertEqual(world.problems(containing: "more than once").count, 1, "the app is told about its bug")
    }

    func testALateAnswerFromAnotherThreadCountsUnlessCancelled() async throws {
        let (world, _) = try await authorizedWorld()
        let answers = world.recordShieldAnswers()
        let held = HeldCompletions()
        try ShieldActionAttachment.attach(
            RecordingActionDelegate(log: Recorder(), held: held) { _ in nil },
            client: world.process("org.example.focus").client)

        let waited = try XCTUnwrap(
            world.host.requestShieldAction(
                owner: "org.example.focus", action: .secondaryButtonPressed, item: world.chess()))
        let abandoned = try XCTUnwrap(
            world.host.requestShieldAction(
                owner: "org.example.focus", action: .primaryButtonPressed, item: world.chess()))
        XCTAssertEqual(answers.all, [], "nothing until the delegate calls its handler")
        XCTAssertEqual(held.count, 2)

        world.host.cancelShieldRequest(abandoned)
        let done = expectation(description: "answered from another thread")
        let thread = Thread {
            held.answer(.defer)
            held.answer(.close)
            done.fulfill()
        }
        thread.start()
        await fulfillment(of: [done], timeout: 5)
        XCTAssertEqual(answers.all, [.action(waited, .defer)], "the cancelled request's answer is ignored")
    }

    func testAClientCannotAnswerARequestItWasNotAsked() async throws {
        let (world, _) = try await authorizedWorld()
        world.use("org.example.other")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let answers = world.recordShieldAnswers()
        let held = HeldCompletions()
        try ShieldActionAttachment.attach(
            RecordingActionDelegate(log: Recorder(), held: held) { _ in nil },
            client: world.process("org.example.focus").client)
        let id = try XCTUnwrap(
            world.host.requestShieldAction(
                owner: "org.example.focus", action: .primaryButtonPressed, item: world.chess()))

        // Another app, the same app on another connection, and an answer of the wrong kind: all ignored,
        // without a word.
        let other = world.process("org.example.other").client
        XCTAssertEqual(
            try send(other, ShieldActionMethods.answer, ShieldActionAnswer(id: id.rawValue, response: .none)), Empty())
        let sameAppElsewhere = world.process("org.example.focus").client
        XCTAssertEqual(
            try send(
                sameAppElsewhere, ShieldActionMethods.answer, ShieldActionAnswer(id: id.rawValue, response: .none)),
            Empty())
        XCTAssertEqual(
            try send(
                sameAppElsewhere, ShieldConfigurationMethods.answer,
                ShieldConfigurationAnswer(id: id.rawValue, configuration: .init())), Empty())
        XCTAssertEqual(
            try send(other, ShieldActionMethods.answer, ShieldActionAnswer(id: 999_999, response: .none)), Empty())
        XCTAssertEqual(answers.all, [])

        held.answer(.close)
        XCTAssertEqual(answers.all, [.action(id, .close)], "the delegate that was asked still answers")
    }

    func testADelegateThatExitsTakesItsQuestionsAlong() async throws {
        let (world, _) = try await authorizedWorld()
        let answers = world.recordShieldAnswers()
        let held = HeldCompletions()
        let process = world.process("org.example.focus")
        try ShieldActionAttachment.attach(
            RecordingActionDelegate(log: Recorder(), held: held) { _ in nil }, client: process.client)
        XCTAssertNotNil(
            world.host.requestShieldAction(
                owner: "org.example.focus", action: .primaryButtonPressed, item: world.chess()))
        process.exit()
        XCTAssertNil(
            world.host.requestShieldAction(
                owner: "org.example.focus", action: .primaryButtonPressed, item: world.chess()))
        held.answer(.close)
        XCTAssertEqual(answers.all, [])

        let heard = Recorder<HeardAction>()
        try ShieldActionAttachment.attach(
            RecordingActionDelegate(log: heard) { _ in ShieldActionResponse.none },
            client: world.process("org.example.focus").client)
        let id = try XCTUnwrap(
            world.host.requestShieldAction(
                owner: "org.example.focus", action: .secondaryButtonPressed, item: world.chess()))
        XCTAssertEqual(answers.all, [.action(id, .none)])
        XCTAssertEqual(heard.all.count, 1)
    }
    /// "Ask for access": the shield is redrawn as for `.defer`, the owner hears what was asked
    /// for, and a guardian's approval reaches the delegate's method for the token kind, in the
    /// app's own tokens, also when the delegate attaches only after the approval.
    func testAskingForAccessReachesTheOwnerAndAnApprovalReachesTheDelegate() async throws {
        let (world, picked) = try await authorizedWorld()
        let asked = Recorder<ShieldedItem>()
        world.service.onAccessAsked = { owner, item in
            XCTAssertEqual(owner, "org.example.focus")
            asked.append(item)
        }
        let answers = world.recordShieldAnswers()
        let process = world.process("org.example.focus")
        let approvals = Recorder<String>()
        try ShieldActionAttachment.attach(ApprovalRecorder(log: approvals), client: process.client)
        let chessInGames = world.chess(inCategory: true)
        let id = try XCTUnwrap(
            world.host.requestShieldAction(
                owner: "org.example.focus", action: .secondaryButtonPressed, item: chessInGames))
        XCTAssertEqual(answers.all, [.action(id, .defer)])
        XCTAssertEqual(asked.all, [chessInGames])

        let games = picked.categoryTokens.first!.opaqueValue
        let chess = picked.applicationTokens.first!.opaqueValue
        world.service.approveAccess(owner: "org.example.focus", item: chessInGames, by: "mum").forEach { $0.send() }
        waitUntil("the approval") { approvals.all.count == 1 }
        XCTAssertEqual(approvals.all, ["category \(games) application \(chess) by mum"])

        // No delegate attached: the approval waits for one.
        process.exit()
        XCTAssertTrue(world.service.approveAccess(owner: "org.example.focus", item: world.chess(), by: "dad").isEmpty)
        try ShieldActionAttachment.attach(
            ApprovalRecorder(log: approvals), client: world.process("org.example.focus").client)
        waitUntil("the approval that waited") { approvals.all.count == 2 }
        XCTAssertEqual(approvals.all.last, "application \(chess) by dad")
    }
}

/// Asks for access on any shield of a category, and records the approvals it is told of.
final class ApprovalRecorder: ShieldActionDelegate {
    private var log: Recorder<String>?

    convenience init(log: Recorder<String>) {
        self.init()
        self.log = log
    }

    required init() {}

    override func handle(
        action: ShieldAction, for category: ActivityCategoryToken,
        completionHandler: @escaping (ShieldActionResponse) -> Void
    ) {
        completionHandler(action == .secondaryButtonPressed ? .askForAccess : .close)
    }

    override func guardianApprovedAccess(to application: ApplicationToken, by guardian: String) {
        log?.append("application \(application.opaqueValue) by \(guardian)")
    }

    override func guardianApprovedAccess(
        to category: ActivityCategoryToken, application: ApplicationToken?, webDomain: WebDomainToken?,
        by guardian: String
    ) {
        log?.append("category \(category.opaqueValue) application \(application?.opaqueValue ?? "-") by \(guardian)")
    }
}
