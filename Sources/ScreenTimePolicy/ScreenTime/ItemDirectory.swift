import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardBasics

/// Names of things (application ids, category ids, domains) and the device-wide
/// tokens for them: what the activity picker's back end and the shield listing need.
public struct ItemDirectory: Sendable {
    public let minter: TokenMinter
    public let catalog: ApplicationCatalog
    public let categories: CategoryTable
    /// Applications that are no program's, known by their id (a managed user's Console).
    public let builtIn: [AppIdentity]

    public init(
        minter: TokenMinter, catalog: ApplicationCatalog, categories: CategoryTable, builtIn: [AppIdentity] = []
    ) {
        self.minter = minter
        self.catalog = catalog
        self.categories = categories
        self.builtIn = builtIn
    }

    /// The application with this id as `screenward usage --json` shows it: a desktop id
    /// from the catalog, `wmclass:<class>`, `exe:<path>`, or a built-in one's.
    public func application(publicID: String) -> AppIdentity? {
        if let known = builtIn.first(where: { $0.publicID == publicID }) { return known }
        if let wmClass = publicID.dropPrefix("wmclass:") {
            return wmClass.isEmpty ? nil : AppIdentity(key: .windowClass(wmClass), displayName: wmClass)
        }
        if let path = publicID.dropPrefix("exe:") {
            return path.hasPrefix("/")
                ? AppIdentity(key: .executable(path), displayName: (path as NSString).lastPathComponent) : nil
        }
        guard let entry = catalog.entry(id: publicID) else { return nil }
        return AppIdentity(
            key: .desktopEntry(entry.id), displayName: entry.name, iconName: entry.iconName,
            categories: entry.categories)
    }

    /// The activity category id of an application (`Game`, `Social`, `Other`…).
    public func categoryID(of app: AppIdentity) -> String {
        let desktopID: String? = if case .desktopEntry(let id) = app.key { id } else { nil }
        return categories.category(desktopID: desktopID, entryCategories: app.categories)
    }

    public func categoryTokens(of app: AppIdentity) -> Set<ActivityCategoryToken> {
        [minter.categoryToken(forCategory: categoryID(of: app))]
    }

    /// The ids of the installed applications (the catalog's) in category `id`: what a picked
    /// category stands for with `includeEntireCategory`.
    public func applicationIDs(inCategory id: String) -> [String] {
        catalog.entries.compactMap { entry in
            guard let app = application(publicID: entry.id), categoryID(of: app) == id else { return nil }
            return entry.id
        }
    }

    public func isCategory(_ id: String) -> Bool {
        categories.categories.contains { $0.id == id }
    }

    /// Every category's device token, by category id.
    public func categoryTokensByID() -> [String: ActivityCategoryToken] {
        Dictionary(
            uniqueKeysWithValues: categories.categories.map { ($0.id, minter.categoryToken(forCategory: $0.id)) })
    }

    /// A domain name as people type it, as Screenward keeps host names (lower case, ASCII:
    /// `Bücher.DE` is `xn--bcher-kva.de`, as the browsers report it); nil when it is not one.
    public static func normalizedDomain(_ text: String) -> String? {
        guard let domain = HostName.ascii(text.trimmingCharacters(in: CharacterSet(charactersIn: ". "))),
            domain.split(separator: ".").count >= 2
        else { return nil }
        return domain
    }
}

extension String {
    fileprivate func dropPrefix(_ prefix: String) -> String? {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)) : nil
    }
}
