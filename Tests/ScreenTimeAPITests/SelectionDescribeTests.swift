@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardCore
import ScreenwardIPC
import XCTest

/// `selection.describe`, the picker's way back from an app's tokens to the items it ticks.
final class SelectionDescribeTests: XCTestCase {
    func testAnAppsOwnTokensAreDescribedAsTheIdsTheyWereIssuedFor() async throws {
        let world = try InProcessWorld(test: self)
        world.use("org.example.picker")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        var picked = try world.pick(
            applications: ["chat.desktop", "chess.desktop"], categories: ["Game"], webDomains: ["news.example.org"])
        picked.includeEntireCategory = true

        let described = try await ScreenwardApp.client.call(AuthorizationMethods.describeSelection, picked)
        XCTAssertEqual(
            described.items,
            SelectionRequest(
                applications: ["chat.desktop", "chess.desktop"], categories: ["Game"], webDomains: ["news.example.org"],
                includeEntireCategory: true))
        XCTAssertEqual(described.skipped, [])
        // Issued again from the description, the tokens are the same: the round trip the picker makes.
        let issuedAgain = try await ScreenwardApp.client.call(AuthorizationMethods.issueSelection, described.items)
        XCTAssertEqual(issuedAgain, picked)
    }

    /// With `includeEntireCategory`, a picked category brings the tokens of its installed
    /// applications too; without it, the category's token alone.
    func testAnEntireCategoryBringsItsApplications() async throws {
        let world = try InProcessWorld(test: self)
        world.use("org.example.picker")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let alone = try await FamilyActivitySelection.choosing(categories: ["Game"])
        XCTAssertEqual(alone.applicationTokens, [])
        XCTAssertEqual(alone.categoryTokens.count, 1)
        let entire = try await FamilyActivitySelection.choosing(categories: ["Game"], includeEntireCategory: true)
        XCTAssertEqual(entire.categoryTokens, alone.categoryTokens)
        let chess = try await FamilyActivitySelection.choosing(applications: ["chess.desktop"])
        XCTAssertEqual(entire.applicationTokens, chess.applicationTokens, "chess is the one game installed")
    }

    /// Where websites are counted, a token is issued for the website as it is counted: a host
    /// an app or a person names (`www.YouTube.com`) gets the registrable domain's token, the
    /// one its time is filed under, and not a token no time would ever reach.
    func testAWebsitesTokenIsForItsRegistrableDomainWhereWebsitesAreCounted() async throws {
        let addresses = WebAddresses(suffixes: try PublicSuffixList(contents: "com\norg\nco.uk\n"))
        let world = try InProcessWorld(test: self, browsers: addresses)
        world.use("org.example.picker")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let host = try world.pick(webDomains: ["www.YouTube.com", "news.bbc.co.uk"])
        let described = try await ScreenwardApp.client.call(AuthorizationMethods.describeSelection, host)
        XCTAssertEqual(described.items.webDomains, ["bbc.co.uk", "youtube.com"])
        XCTAssertEqual(host, try world.pick(webDomains: ["youtube.com", "bbc.co.uk"]))
    }

    /// Screenward's addition for programs with no person at the picker: the same tokens the
    /// picker's ids get, and a clear error for an id that names nothing or an app not authorised.
    func testChoosingByIdsGivesThePickersTokensAndSaysWhatIsWrong() async throws {
        let world = try InProcessWorld(test: self)
        world.use("org.example.script")
        do {
            _ = try await FamilyActivitySelection.choosing(applications: ["chat.desktop"])
            XCTFail("an app not authorised got tokens")
        } catch let error as FamilyControlsError {
            XCTAssertTrue("\(error)".contains("is not authorised"), "\(error)")
        }
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let chosen = try await FamilyActivitySelection.choosing(
            applications: ["chat.desktop"], categories: ["Game"], webDomains: ["example.org"])
        XCTAssertEqual(
            chosen, try world.pick(applications: ["chat.desktop"], categories: ["Game"], webDomains: ["example.org"]))
        do {
            _ = try await FamilyActivitySelection.choosing(applications: ["nothing.desktop"])
            XCTFail("an id that names nothing gave a token")
        } catch let error as FamilyControlsError {
            XCTAssertEqual(
                error,
                .invalidArgument(
                    """
                    no application \"nothing.desktop\" is installed (ids are desktop ids such as firefox.desktop, \
                    or wmclass:<class>)
                    """
                ))
        }
    }

    func testAnotherAppsTokensAreLeftOutWithTheReasonAndNeverNamed() async throws {
        let world = try InProcessWorld(test: self)
        world.use("org.example.other")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let others = try world.pick(applications: ["editor.desktop"], categories: ["Social"])

        world.use("org.example.mine")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        var mixed = try world.pick(applications: ["chat.desktop"])
        mixed.applicationTokens.formUnion(others.applicationTokens)
        mixed.categoryTokens = others.categoryTokens

        let described = try await ScreenwardApp.client.call(AuthorizationMethods.describeSelection, mixed)
        XCTAssertEqual(described.items.applications, ["chat.desktop"])
        XCTAssertEqual(described.items.categories, [])
        XCTAssertEqual(described.skipped.count, 2, "\(described.skipped)")
        XCTAssertTrue(
            described.skipped.allSatisfy { $0.contains("not a") && $0.contains("of org.example.mine") },
            "\(described.skipped)")
        XCTAssertFalse(described.skipped.joined().contains("editor"), "another app's items are never named")
    }

    func testAnUnauthorisedAppIsRefused() throws {
        let world = try InProcessWorld(test: self)
        world.use("org.example.stranger")
        XCTAssertThrowsError(
            try ScreenwardApp.client.call(AuthorizationMethods.describeSelection, FamilyActivitySelection())
        ) { error in
            XCTAssertEqual((error as? ServiceError)?.code, .unauthorized)
        }
    }
}
