@_spi(Screenward) import FamilyControls
import Foundation
import ScreenTimePolicy
import ScreenwardBasics
import ScreenwardIPC
import UsageLedger

/// Where the activity picker's list comes from in this session.
///
/// - The installed applications: the desktop entries of the session's XDG data
///   directories (NoDisplay and Hidden ones left out), as the menus show them.
/// - The applications and websites seen in use: in a person's own account, their ledger,
///   opened as `screenward usage` opens it (nothing is recorded by the picker); in an
///   account a guardian manages, the system daemon's `child.usage` over the whole ledger
///   (the one request about their usage a managed user may make; it has no categories, so
///   an application that is no longer installed lands in Other).
/// - The Public Suffix List, so a website typed in the search (`www.youtube.com`) is
///   listed as the website it is (`youtube.com`).
public struct PickerSource {
    public var environment: [String: String]

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// The catalog to show, plus problems worth a line on standard error (broken desktop
    /// entries, a ledger that cannot be read): none of them keeps the picker closed.
    ///
    /// - Parameter alsoListing: what is already chosen, listed (so it can be unticked) even
    ///   when nothing else knows it any more.
    /// - Parameter given: what was seen in use, from whoever runs the picker (a managed
    ///   session's agent, for the daemon); nil: read here.
    @_spi(Screenward) public func load(
        alsoListing chosen: SelectionRequest = SelectionRequest(), seen given: PickerSeen? = nil
    ) throws -> PickerSourceContents {
        let categories = try DataDirectory.categoryTable()
        // No executable search path: the picker needs the entries, not the index of their
        // programs that identity resolution builds (a PATH lookup per entry).
        let (catalog, entryProblems) = ApplicationCatalog.load(
            dataDirectories: ApplicationCatalog.applicationDirectories(environment),
            locale: DesktopEntry.locale(fromEnvironment: environment),
            executableSearchPath: [])
        var problems = entryProblems
        var seen: (applications: [KnownApplication], websites: [String]) = ([], [])
        do {
            seen =
                try given.map {
                    (
                        $0.applications.map { KnownApplication(token: "", publicID: $0.id, displayName: $0.name) },
                        $0.websites
                    )
                } ?? seenInUse()
        } catch {
            problems.append("the applications and websites seen in use are not listed: \(error)")
        }
        let known = Set(seen.applications.map(\.publicID))
        for id in chosen.applications where catalog.entry(id: id) == nil && !known.contains(id) {
            seen.applications.append(KnownApplication(token: "", publicID: id, displayName: id))
        }
        let picker = PickerCatalog(
            catalog: catalog, seen: seen.applications, websites: seen.websites + chosen.webDomains,
            categories: categories,
            language: ShieldListing.language(fromEnvironment: environment))
        var addresses: WebAddresses?
        do {
            addresses = WebAddresses(suffixes: try PublicSuffixList.load())
        } catch {
            problems.append("websites cannot be typed in the search: \(error)")
        }
        return PickerSourceContents(catalog: picker, categories: categories, addresses: addresses, problems: problems)
    }

    private func seenInUse() throws -> (applications: [KnownApplication], websites: [String]) {
        if DaemonAddress.socketManagingThisAccount(environment: environment) != nil {
            let transport = SocketTransport(path: DaemonAddress.socketPath(environment: environment), owner: .daemon)
            defer { transport.close() }
            let client = ServiceClient(transport: transport, bundleIdentifier: Self.clientLabel)
            let report = try client.call(ChildMethods.usage, UsageQuery(user: nil, since: "2000-01-01", until: "now"))
            return (
                report.apps.map { KnownApplication(token: $0.token, publicID: $0.id, displayName: $0.name) },
                report.websites.map(\.domain)
            )
        }
        let home = ScreenwardHome.fromEnvironment(environment)
        guard FileManager.default.fileExists(atPath: home.ledgerURL.path) else { return ([], []) }
        let ledger = try Ledger(url: home.ledgerURL)
        return (try ledger.knownApplications(), try ledger.knownWebsites())
    }

    /// How the picker labels itself to the daemon (which knows callers by their uid).
    static let clientLabel = "org.screenward.picker"
}

/// What `PickerSource.load` found.
public struct PickerSourceContents: Sendable {
    public var catalog: PickerCatalog
    /// For the category of a website typed in the search.
    public var categories: CategoryTable
    /// Nil when the Public Suffix List cannot be read: then no website can be typed.
    public var addresses: WebAddresses?
    /// Worth a line on standard error each; none of them keeps the picker closed.
    public var problems: [String]
}

extension PickerCatalog {
    /// The registrable domain a person typed, if what they typed is a website's name.
    public static func website(typed query: String, addresses: WebAddresses?) -> String? {
        let trimmed = query.trimmingCharacters(in: .whitespaces)
        guard let addresses, trimmed.contains("."), !trimmed.contains(" "),
            let website = try? addresses.website(named: trimmed),
            // An address is no name to pick: its "domain" is itself.
            website.domain.contains(where: \.isLetter),
            website.domain != addresses.suffixes.publicSuffix(of: website.domain)
        else { return nil }
        return website.domain
    }
}
