import Foundation
import ScreenwardIPC

/// Where the activity picker's list comes from in this session.
///
/// - The installed applications: the desktop entries of the session's XDG data
///   directories (NoDisplay and Hidden ones left out), as the menus show them.
/// - The applications seen in use: in a person's own account, their ledger, opened as
///   `screenward usage` opens it (nothing is recorded by the picker); in an account a
///   guardian manages, the system daemon's `child.usage` over the whole ledger (the one
///   request about their usage a managed user may make; it has no categories, so an
///   application that is no longer installed lands in Other).
public struct PickerSource {
    public var environment: [String: String]

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// The catalog to show, plus problems worth a line on standard error (broken desktop
    /// entries, a ledger that cannot be read): none of them keeps the picker closed.
    ///
    /// - Parameter alsoListing: ids already chosen that must be listed (so they can be
    ///   unticked) even when nothing else knows them any more.
    public func load(alsoListing chosen: [String] = []) throws -> (catalog: PickerCatalog, problems: [String]) {
        let categories = try DataDirectory.categoryTable()
        // No executable search path: the picker needs the entries, not the index of their
        // programs that identity resolution builds (a PATH lookup per entry).
        let (catalog, entryProblems) = ApplicationCatalog.load(
            dataDirectories: ApplicationCatalog.applicationDirectories(environment), locale: DesktopEntry.locale(fromEnvironment: environment),
            executableSearchPath: [])
        var problems = entryProblems
        var seen: [KnownApplication] = []
        do {
            seen = try seenApplications()
        } catch {
            problems.append("the applications seen in use are not listed: \(error)")
        }
        let known = Set(seen.map(\.publicID))
        for id in chosen where catalog.entry(id: id) == nil && !known.contains(id) {
            seen.append(KnownApplication(token: "", publicID: id, displayName: id))
        }
        let picker = PickerCatalog(
            catalog: catalog, seen: seen, categories: categories, language: ShieldListing.language(fromEnvironment: environment))
        return (picker, problems)
    }

    private func seenApplications() throws -> [KnownApplication] {
        if DaemonAddress.socketManagingThisAccount(environment: environment) != nil {
            let transport = SocketTransport(path: DaemonAddress.socketPath(environment: environment), owner: .daemon)
            defer { transport.close() }
            let client = ServiceClient(transport: transport, bundleIdentifier: Self.clientLabel)
            let report = try client.call(ChildMethods.usage, UsageQuery(user: nil, since: "2000-01-01", until: "now"))
            return report.apps.map { KnownApplication(token: $0.token, publicID: $0.id, displayName: $0.name) }
        }
        let home = ScreenwardHome.fromEnvironment(environment)
        guard FileManager.default.fileExists(atPath: home.ledgerURL.path) else { return [] }
        return try Ledger(url: home.ledgerURL).knownApplications()
    }

    /// How the picker labels itself to the daemon (which knows callers by their uid).
    static let clientLabel = "org.screenward.picker"
}
