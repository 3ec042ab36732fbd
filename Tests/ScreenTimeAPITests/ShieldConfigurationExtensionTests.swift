@_spi(Screenward) import DeviceActivity
@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ManagedSettings
@_spi(Screenward) import ManagedSettingsUI
import ScreenwardCore
import ScreenwardIPC
import XCTest

/// The agent asks the data source of the app whose store put up a shield, in that app's
/// own tokens, and hands the answer to the shield presenter.
final class ShieldConfigurationExtensionTests: XCTestCase {
    func testTheDataSourceIsAskedInTheAppsOwnTokensAndItsAnswerComesBack() async throws {
        let world = try InProcessWorld(test: self)
        world.use("org.example.focus")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let picked = try world.pick(applications: ["chess.desktop"], categories: ["Game"], webDomains: ["example.com"])
        let asked = Recorder<ShieldRequestSubject>()
        _ = try world.startDataSource("org.example.focus", log: asked)
        let answers = world.recordShieldAnswers()

        let id = try XCTUnwrap(world.host.requestShieldConfiguration(owner: "org.example.focus", item: world.chess()))
        let chess = Application(
            token: picked.applicationTokens.first, bundleIdentifier: "chess.desktop", localizedDisplayName: "Chess")
        XCTAssertEqual(asked.all, [.application(chess)])
        XCTAssertEqual(answers.all, [.configuration(id, RecordingDataSource.title("app Chess"))])
        XCTAssertNotEqual(
            chess.token, world.applicationToken("chess.desktop"), "the app never sees a device-wide token")

        let second = try XCTUnwrap(
            world.host.requestShieldConfiguration(owner: "org.example.focus", item: world.chess(inCategory: true)))
        XCTAssertNotEqual(second, id)
        let games = ActivityCategory(token: picked.categoryTokens.first, localizedDisplayName: "Games")
        XCTAssertEqual(asked.all.last, .applicationInCategory(chess, games))
        XCTAssertEqual(answers.all.last, .configuration(second, RecordingDataSource.title("app Chess in Games")))

        var site = WebDomain(token: picked.webDomainTokens.first!)
        site.domain = "example.com"
        let third = try XCTUnwrap(
            world.host.requestShieldConfiguration(
                owner: "org.example.focus", item: .webDomain(world.webDomainToken("example.com"), domain: "example.com")
            ))
        XCTAssertEqual(asked.all.last, .webDomain(site))
        XCTAssertEqual(answers.all.last, .configuration(third, RecordingDataSource.title("site example.com")))
        let fourth = try XCTUnwrap(
            world.host.requestShieldConfiguration(
                owner: "org.example.focus",
                item: .webDomainInCategory(
                    world.webDomainToken("example.com"), domain: "example.com", category: world.categoryToken("Game"),
                    categoryName: "Games")))
        XCTAssertEqual(asked.all.last, .webDomainInCategory(site, games))
        XCTAssertEqual(answers.all.last, .configuration(fourth, RecordingDataSource.title("site example.com in Games")))
        XCTAssertEqual(answers.all.count, 4, "each answer once")
        XCTAssertEqual(world.problems.all, [])
    }

    /// An application shielded because of a category the app picked: the app never
    /// picked the application, yet receives its own token for it, which it can use.
    func testAnApplicationTheAppNeverPickedComesWithATokenTheAppCanUse() async throws {
        let world = try InProcessWorld(test: self)
        world.use("org.example.focus")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let games = try world.pick(categories: ["Game"])
        ManagedSettingsStore().shield.applicationCategories = .specific(games.categoryTokens)
        let asked = Recorder<ShieldRequestSubject>()
        _ = try world.startDataSource("org.example.focus", log: asked)
        XCTAssertNotNil(
            world.host.requestShieldConfiguration(owner: "org.example.focus", item: world.chess(inCategory: true)))

        guard case .applicationInCategory(let chess, let category) = asked.all.first else {
            return XCTFail("\(asked.all)")
        }
        XCTAssertEqual(category.token, games.categoryTokens.first)
        let token = try XCTUnwrap(chess.token)
        XCTAssertEqual(
            try world.pick(applications: ["chess.desktop"]).applicationTokens, [token],
            "the same token the picker gives")
        ManagedSettingsStore(named: .init("chess")).shield.applications = [token]
        XCTAssertEqual(world.problems.all, [], "the token is the app's: its store takes it")
        XCTAssertEqual(
            world.shieldingStores(ofApplication: "chess.desktop"),
            ["org.example.focus/chess", "org.example.focus/default"])

        // Another app's token for the same application is another token.
        world.use("org.example.other")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let otherAsked = Recorder<ShieldRequestSubject>()
        _ = try world.startDataSource("org.example.other", log: otherAsked)
        _ = world.host.requestShieldConfiguration(owner: "org.example.other", item: world.chess())
        guard case .application(let otherChess) = otherAsked.all.first else { return XCTFail("\(otherAsked.all)") }
        XCTAssertNotEqual(otherChess.token, token)
        XCTAssertEqual(asked.all.count, 1, "only the owner's data source is asked")
    }

    func testWithoutADataSourceThereIsNothingToWaitFor() async throws {
        let world = try InProcessWorld(test: self)
        world.use("org.example.focus")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        XCTAssertNil(world.host.requestShieldConfiguration(owner: "org.example.focus", item: world.chess()))
        XCTAssertNil(
            world.host.requestShieldAction(
                owner: "org.example.focus", action: .primaryButtonPressed, item: world.chess()))
        XCTAssertNil(world.host.requestShieldConfiguration(owner: "org.example.nobody", item: world.chess()))

        // Another app's data source is not this app's.
        _ = try world.startDataSource("org.example.focus", log: Recorder())
        XCTAssertNil(world.host.requestShieldConfiguration(owner: "org.example.other", item: world.chess()))
    }

    func testAnAppThatIsNotAuthorisedCannotAttach() throws {
        let world = try InProcessWorld(test: self)
        let process = world.process("org.example.stranger")
        XCTAssertThrowsError(try ShieldConfigurationAttachment.attach(RecordingDataSource(), client: process.client)) {
            error in
            XCTAssertEqual((error as? ServiceError)?.code, .unauthorized, "\(error)")
        }
        XCTAssertThrowsError(try ShieldActionAttachment.attach(RecordingActionDelegate(), client: process.client)) {
            error in
            XCTAssertEqual((error as? ServiceError)?.code, .unauthorized, "\(error)")
        }
        XCTAssertNil(world.host.requestShieldConfiguration(owner: "org.example.stranger", item: world.chess()))
    }

    func testAnExtensionThatExitsIsDetachedAndANewOneIsAsked() async throws {
        let world = try InProcessWorld(test: self)
        world.use("org.example.focus")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let answers = world.recordShieldAnswers()
        let firstAsked = Recorder<ShieldRequestSubject>()
        let first = try world.startDataSource("org.example.focus", log: firstAsked)
        let secondAsked = Recorder<ShieldRequestSubject>()
        let second = try world.startDataSource("org.example.focus", log: secondAsked)

        XCTAssertNotNil(world.host.requestShieldConfiguration(owner: "org.example.focus", item: world.chess()))
        XCTAssertEqual(firstAsked.all.count, 0, "the latest attach wins")
        XCTAssertEqual(secondAsked.all.count, 1)
        first.exit()
        XCTAssertNotNil(
            world.host.requestShieldConfiguration(owner: "org.example.focus", item: world.chess()),
            "the older one leaving changes nothing")
        second.exit()
        XCTAssertNil(world.host.requestShieldConfiguration(owner: "org.example.focus", item: world.chess()))

        // The app's data source starts again (a new process, or the same after the agent restarted).
        let thirdAsked = Recorder<ShieldRequestSubject>()
        _ = try world.startDataSource("org.example.focus", log: thirdAsked)
        let id = try XCTUnwrap(world.host.requestShieldConfiguration(owner: "org.example.focus", item: world.chess()))
        XCTAssertEqual(thirdAsked.all.count, 1)
        XCTAssertEqual(answers.all.last, .configuration(id, RecordingDataSource.title("app Chess")))
        XCTAssertEqual(answers.all.count, 3)
    }

    func testARevokedAppsExtensionsAreAskedNothingMore() async throws {
        let world = try InProcessWorld(test: self)
        world.use("org.example.focus")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let process = try world.startDataSource("org.example.focus", log: Recorder())
        try ShieldActionAttachment.attach(
            RecordingActionDelegate(log: Recorder()) { _ in .close }, client: process.client)
        XCTAssertNotNil(world.host.requestShieldConfiguration(owner: "org.example.focus", item: world.chess()))
        try await AuthorizationCenter.shared.revokeAuthorization()
        XCTAssertNil(world.host.requestShieldConfiguration(owner: "org.example.focus", item: world.chess()))
        XCTAssertNil(
            world.host.requestShieldAction(
                owner: "org.example.focus", action: .primaryButtonPressed, item: world.chess()))
    }

    /// One process may run the app's monitor and both shield extensions on one connection.
    func testAMonitorAndBothShieldExtensionsShareAConnection() async throws {
        let world = try InProcessWorld(test: self, start: "2026-11-23 09:00")
        world.use("org.example.focus")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let process = world.process("org.example.focus")
        let heard = Recorder<Heard>()
        try MonitorAttachment.attach(RecordingMonitor(log: heard), client: process.client)
        let asked = Recorder<ShieldRequestSubject>()
        try ShieldConfigurationAttachment.attach(RecordingDataSource(log: asked), client: process.client)
        let actions = Recorder<HeardAction>()
        try ShieldActionAttachment.attach(RecordingActionDelegate(log: actions) { _ in .defer }, client: process.client)
        let answers = world.recordShieldAnswers()

        try DeviceActivityCenter().startMonitoring(
            "daily", during: DeviceActivitySchedule(intervalStart: at(10), intervalEnd: at(12), repeats: true))
        world.advance(to: "2026-11-23 10:30")
        let configuration = try XCTUnwrap(
            world.host.requestShieldConfiguration(owner: "org.example.focus", item: world.chess()))
        let action = try XCTUnwrap(
            world.host.requestShieldAction(
                owner: "org.example.focus", action: .secondaryButtonPressed, item: world.chess()))
        XCTAssertEqual(heard.all.map(\.line), ["intervalDidStart daily [11-23 10:00–11-23 12:00] at 11-23 10:00"])
        XCTAssertEqual(asked.all.count, 1)
        XCTAssertEqual(actions.all.map(\.method), ["application"])
        XCTAssertEqual(
            answers.all,
            [.configuration(configuration, RecordingDataSource.title("app Chess")), .action(action, .defer)])
        XCTAssertEqual(world.problems.all, [])
    }
}
