@_spi(Screenward) import DeviceActivity
@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardCore
import ScreenwardIPC
import XCTest

/// `AuthorizationCenter` as apps use it: `.individual` is approved and remembered,
/// `.child` is refused in an account nobody manages (invalidAccountType), any number of apps hold it at once.
final class AuthorizationTests: XCTestCase {
    func testIndividualIsApprovedAndRememberedWithTheSameTokens() async throws {
        let world = try InProcessWorld(test: self)
        world.use("org.example.focus")
        XCTAssertEqual(AuthorizationCenter.shared.authorizationStatus, .notDetermined)

        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        XCTAssertEqual(AuthorizationCenter.shared.authorizationStatus, .approved)
        let first = try world.pick(applications: ["chat.desktop"], categories: ["Game"])

        // A second request is silent and keeps the grant, so the tokens stay valid.
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        XCTAssertEqual(AuthorizationCenter.shared.authorizationStatus, .approved)
        let second = try world.pick(applications: ["chat.desktop"], categories: ["Game"])
        XCTAssertEqual(second.applicationTokens, first.applicationTokens)
        XCTAssertEqual(second.categoryTokens, first.categoryTokens)

        ManagedSettingsStore().shield.applications = first.applicationTokens
        XCTAssertEqual(world.shieldingStores(ofApplication: "chat.desktop"), ["org.example.focus/default"])
        XCTAssertEqual(world.problems.all, [])
    }

    func testChildAuthorizationInAnAccountNobodyManagesIsAnInvalidAccountType() async throws {
        let world = try InProcessWorld(test: self)
        world.use("org.example.family")
        do {
            try await AuthorizationCenter.shared.requestAuthorization(for: .child)
            XCTFail("a person's own agent cannot grant .child")
        } catch let error as FamilyControlsError {
            guard case .invalidAccountType = error else { return XCTFail("unexpected \(error)") }
        }
        XCTAssertEqual(AuthorizationCenter.shared.authorizationStatus, .notDetermined)

        // The agent refuses it too, to a client that asks it directly.
        do {
            let status = try await ScreenwardApp.client.call(AuthorizationMethods.request, .child)
            XCTFail("the agent answered \(status)")
        } catch {
            XCTAssertEqual((error as? ServiceError)?.code, .invalidAccountType)
            XCTAssertTrue("\(error)".contains("guardian"), "\(error)")
        }
        XCTAssertEqual(AuthorizationCenter.shared.authorizationStatus, .notDetermined)

        // iOS 15's form asks for .child too, and hands the same refusal to its handler.
        let outcome = await withCheckedContinuation { (done: CheckedContinuation<String, Never>) in
            AuthorizationCenter.shared.requestAuthorization { result in
                switch result {
                case .success: done.resume(returning: "approved")
                case .failure(let error): done.resume(returning: "\(error)")
                }
            }
        }
        XCTAssertEqual(outcome, "\(FamilyControlsError.invalidAccountType)")
    }

    /// What observing Apple's published `authorizationStatus` gives: the status at once, then
    /// each change, to every stream of the app's process.
    func testTheStatusIsObservedAsItChanges() async throws {
        let world = try InProcessWorld(test: self)
        world.use("org.example.family")
        var first = AuthorizationCenter.shared.authorizationStatusUpdates.makeAsyncIterator()
        var second = AuthorizationCenter.shared.authorizationStatusUpdates.makeAsyncIterator()
        let initial = await first.next()
        XCTAssertEqual(initial, .notDetermined)
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let approved = await first.next()
        XCTAssertEqual(approved, .approved)
        try await AuthorizationCenter.shared.revokeAuthorization()
        let revoked = await first.next()
        XCTAssertEqual(revoked, .notDetermined)
        var seen: [AuthorizationStatus] = []
        for _ in 0..<3 { if let status = await second.next() { seen.append(status) } }
        XCTAssertEqual(seen, [.notDetermined, .approved, .notDetermined])
    }

    func testAnyNumberOfAppsHoldIndividualAuthorization() async throws {
        let world = try InProcessWorld(test: self)
        let apps = (1...5).map { "org.example.app\($0)" }
        for app in apps {
            world.use(app)
            try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        }
        for (index, app) in apps.enumerated() {
            world.use(app)
            XCTAssertEqual(AuthorizationCenter.shared.authorizationStatus, .approved, app)
            ManagedSettingsStore(named: .init("s\(index)")).shield.applications = try world.pick(applications: [
                "chess.desktop"
            ]).applicationTokens
        }
        XCTAssertEqual(world.shieldingStores(ofApplication: "chess.desktop"), apps.enumerated().map { "\($1)/s\($0)" })
        world.use("org.example.other")
        XCTAssertEqual(AuthorizationCenter.shared.authorizationStatus, .notDetermined, "authorization is per app")
        XCTAssertEqual(world.problems.all, [])
    }
}
