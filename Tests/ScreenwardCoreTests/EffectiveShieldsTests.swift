@_spi(Screenward) import ManagedSettings
import XCTest

@testable import ScreenTimePolicy
@testable import ScreenwardCore

final class EffectiveShieldsTests: XCTestCase {
    let minter = TokenMinter(secret: DeviceSecret(bytes: Array(repeating: 9, count: 32)))
    var game: ApplicationToken {
        minter.applicationToken(for: AppIdentity(key: .desktopEntry("supertux.desktop"), displayName: "SuperTux"))
    }
    var chat: ApplicationToken {
        minter.applicationToken(for: AppIdentity(key: .desktopEntry("chat.desktop"), displayName: "Chat"))
    }
    var editor: ApplicationToken {
        minter.applicationToken(for: AppIdentity(key: .windowClass("Editor"), displayName: "Editor"))
    }
    var games: ActivityCategoryToken { minter.categoryToken(forCategory: "Game") }
    var social: ActivityCategoryToken { minter.categoryToken(forCategory: "Social") }

    /// The Worklog talk: Social is cleared in the evening, Gaming keeps games shielded.
    func testTheMostRestrictiveStoreWins() {
        let gaming = StoreSettings(
            owner: "org.example.worklog", name: "gaming", shield: .init(applicationCategories: .specific([games])))
        var socialStore = StoreSettings(
            owner: "org.example.worklog", name: "social",
            shield: .init(applicationCategories: .specific([social, games], except: [game])))
        var shields = EffectiveShields(stores: [gaming, socialStore])
        XCTAssertTrue(
            shields.isShielded(application: game, categories: [games]),
            "an exception in one store does not lift another's shield")
        XCTAssertTrue(shields.isShielded(application: chat, categories: [social]))
        XCTAssertFalse(shields.isShielded(application: editor, categories: []))

        socialStore.shield = ShieldSettings()  // clearAllSettings() at 17:00
        shields = EffectiveShields(stores: [gaming, socialStore])
        XCTAssertFalse(shields.isShielded(application: chat, categories: [social]))
        XCTAssertEqual(
            shields.reasons(forApplication: game, categories: [games]),
            [ShieldReason(owner: "org.example.worklog", store: "gaming", rule: .category(games))])
    }

    func testAllExceptAndListedApplicationsAndTheirReasons() {
        let focus = StoreSettings(
            owner: "org.example.focus", name: "default",
            shield: .init(applications: [chat], applicationCategories: .all(except: [editor])))
        let shields = EffectiveShields(stores: [focus])
        XCTAssertFalse(shields.isShielded(application: editor, categories: []))
        XCTAssertEqual(
            Set(shields.reasons(forApplication: chat, categories: [social])),
            [
                ShieldReason(owner: "org.example.focus", store: "default", rule: .listed),
                ShieldReason(owner: "org.example.focus", store: "default", rule: .allCategories),
            ])
        XCTAssertEqual(
            EffectiveShields(stores: [
                StoreSettings(
                    owner: "a", name: "b",
                    shield: .init(applicationCategories: ShieldSettings.ActivityCategoryPolicy<Application>.none))
            ]).isShielded(application: chat, categories: [social]), false)
    }

    func testWebDomainsAndShieldedCategoryListing() {
        let domain = minter.webDomainToken(forDomain: "Example.com")
        XCTAssertEqual(domain, minter.webDomainToken(forDomain: "example.com"))
        let store = StoreSettings(
            owner: "x", name: "web", shield: .init(webDomains: [domain], webDomainCategories: .specific([social])))
        let shields = EffectiveShields(stores: [store])
        XCTAssertEqual(shields.reasons(forWebDomain: domain, categories: []).map(\.rule), [.listed])
        XCTAssertEqual(shields.shieldedCategories().keys.sorted { $0.opaqueValue < $1.opaqueValue }, [social])
    }

    func testSettingsRoundTripThroughJSON() throws {
        let store = StoreSettings(
            owner: "x", name: "y",
            shield: .init(applications: [chat], applicationCategories: .specific([games], except: [game])),
            application: .init(blockedApplications: [Application(bundleIdentifier: "chat.desktop")]))
        let decoded = try JSONDecoder().decode(StoreSettings.self, from: JSONEncoder().encode(store))
        XCTAssertEqual(decoded, store)
    }
}
