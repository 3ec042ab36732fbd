@_spi(Screenward) import ManagedSettings
@_spi(Screenward) import ScreenTimePolicy
import XCTest

/// What counts as loosening a store, for a managed account's apps: each setting compared
/// as a set of what it restricts; anything not surely at least as strict is loosening.
final class StoreStrictnessTests: XCTestCase {
    private let game = ApplicationToken(opaqueValue: "game")
    private let chat = ApplicationToken(opaqueValue: "chat")
    private let games = ActivityCategoryToken(opaqueValue: "games")
    private let social = ActivityCategoryToken(opaqueValue: "social")
    private let site = WebDomain(domain: "example.com")
    private let other = WebDomain(domain: "example.org")

    private func store(_ change: (inout StoreContents) -> Void) -> StoreContents {
        var contents = StoreContents(shield: .init(), application: .init())
        change(&contents)
        return contents
    }

    private func loosened(_ old: StoreContents, _ new: StoreContents) -> [String] {
        StoreStrictness.loosened(from: old, to: new)
    }

    func testMoreOfTheSameIsNeverLoosening() {
        let old = store { $0.shield.applications = [game] }
        XCTAssertEqual(loosened(old, old), [])
        XCTAssertEqual(loosened(old, store { $0.shield.applications = [game, chat] }), [])
        XCTAssertEqual(loosened(store { _ in }, old), [], "from an empty store anything tightens")
    }

    func testEachSettingThatRestrictsLessIsNamed() {
        let old = store {
            $0.shield.applications = [game]
            $0.shield.webDomains = [WebDomainToken(opaqueValue: "site")]
            $0.application.blockedApplications = [Application(bundleIdentifier: "chat.desktop")]
            $0.application.denyAppInstallation = true
        }
        XCTAssertEqual(
            loosened(old, store { _ in }),
            [
                "shield.applications", "shield.webDomains", "application.blockedApplications",
                "application.denyAppInstallation",
            ])
        var swapped = old
        swapped.shield.applications = [chat]
        XCTAssertEqual(loosened(old, swapped), ["shield.applications"], "a swap lifts the one left out")
        swapped = old
        swapped.application.denyAppInstallation = false
        XCTAssertEqual(loosened(old, swapped), ["application.denyAppInstallation"])
    }

    func testCategoryPolicies() {
        typealias Policy = ShieldSettings.ActivityCategoryPolicy<Application>
        func check(_ old: Policy?, _ new: Policy?, loosens: Bool, line: UInt = #line) {
            let result = loosened(
                store { $0.shield.applicationCategories = old }, store { $0.shield.applicationCategories = new })
            XCTAssertEqual(result, loosens ? ["shield.applicationCategories"] : [], line: line)
        }
        check(.specific([games]), .specific([games, social]), loosens: false)
        check(.specific([games, social]), .specific([games]), loosens: true)
        check(.specific([games]), .all(), loosens: false)
        check(.all(), .specific([games, social]), loosens: true)
        check(.all(except: [game]), .all(), loosens: false)
        check(.all(), .all(except: [game]), loosens: true)
        check(.specific([games]), .specific([games], except: [game]), loosens: true)
        check(.specific([games]), Policy.none, loosens: true)
        check(nil, .specific([games]), loosens: false)
    }

    func testWebFilterPolicies() {
        typealias Policy = WebContentSettings.FilterPolicy
        func check(_ old: Policy?, _ new: Policy?, loosens: Bool, line: UInt = #line) {
            let result = loosened(
                store { $0.webContent.blockedByFilter = old }, store { $0.webContent.blockedByFilter = new })
            XCTAssertEqual(result, loosens ? ["webContent.blockedByFilter"] : [], line: line)
        }
        check(.specific([site]), .specific([site, other]), loosens: false)
        check(.specific([site, other]), .specific([site]), loosens: true)
        check(.specific([site]), .all(), loosens: false)
        check(.specific([site]), .all(except: [site]), loosens: true)
        check(.auto(), .auto([site]), loosens: false)
        check(.auto(except: [site]), .auto(), loosens: false)
        check(.auto(), .auto(except: [site]), loosens: true)
        check(.auto(), .specific([site, other]), loosens: true)
        check(.all(), .auto(), loosens: true)
        check(.all(except: [site]), .all(), loosens: false)
        check(.auto(), Policy.none, loosens: true)
        check(nil, .auto(), loosens: false)
    }
}
