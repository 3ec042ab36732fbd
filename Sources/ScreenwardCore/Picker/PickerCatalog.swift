import Foundation

/// One application the activity picker lists.
public struct PickerApplication: Hashable, Sendable {
    /// The id `selection.issue` takes: a desktop id, `wmclass:<class>` or `exe:<path>`.
    public var id: String
    public var name: String
    /// A themed icon name or an absolute path, as the desktop entry gives it.
    public var icon: String?
    public var categoryID: String

    public init(id: String, name: String, icon: String? = nil, categoryID: String) {
        self.id = id
        self.name = name
        self.icon = icon
        self.categoryID = categoryID
    }
}

/// A category of the picker's list with its applications, in the order shown.
public struct PickerGroup: Hashable, Sendable {
    public var categoryID: String
    public var title: String
    public var applications: [PickerApplication]
}

/// What the activity picker lists: the installed applications (the desktop entries a
/// menu shows) and those seen in use, grouped by activity category.
///
/// Categories come in the category table's order, except Other, which comes last;
/// applications by name, ignoring case and accents. Every category of the table is
/// listed, even an empty one, so a whole category can be picked before any of its
/// applications is installed (as on Apple's platforms).
public struct PickerCatalog: Sendable {
    public let groups: [PickerGroup]

    public init(groups: [PickerGroup]) {
        self.groups = groups
    }

    /// - Parameters:
    ///   - seen: applications the ledger has seen in use; an entry of the catalog with
    ///     the same id wins (it has the icon), and ones no longer installed are still listed.
    ///   - language: the category names' language (`en`, `ko`, `vi`).
    public init(catalog: ApplicationCatalog, seen: [KnownApplication], categories: CategoryTable, language: String) {
        var applications: [String: PickerApplication] = [:]
        for entry in catalog.entries where !entry.noDisplay {
            applications[entry.id] = PickerApplication(
                id: entry.id, name: entry.name, icon: entry.iconName,
                categoryID: categories.category(desktopID: entry.id, entryCategories: entry.categories))
        }
        for app in seen where applications[app.publicID] == nil && catalog.entry(id: app.publicID) == nil {
            let desktopID = app.publicID.hasSuffix(".desktop") ? app.publicID : nil
            applications[app.publicID] = PickerApplication(
                id: app.publicID, name: app.displayName, categoryID: categories.category(desktopID: desktopID, entryCategories: app.categories))
        }
        let byCategory = Dictionary(grouping: applications.values, by: \.categoryID)
        let order = categories.categories.map(\.id).filter { $0 != CategoryTable.other } + [CategoryTable.other]
        groups = order.map { id in
            PickerGroup(
                categoryID: id, title: categories.displayName(of: id, language: language),
                applications: (byCategory[id] ?? []).sorted(by: Self.listOrder))
        }
    }

    private static func listOrder(_ a: PickerApplication, _ b: PickerApplication) -> Bool {
        switch a.name.compare(b.name, options: [.caseInsensitive, .diacriticInsensitive]) {
        case .orderedAscending: true
        case .orderedDescending: false
        case .orderedSame: a.id < b.id
        }
    }

    public var applicationCount: Int { groups.reduce(0) { $0 + $1.applications.count } }

    public func application(id: String) -> PickerApplication? {
        groups.lazy.flatMap(\.applications).first { $0.id == id }
    }

    /// The groups as shown for a search: an application matches when its name or id
    /// contains every word of `query` (ignoring case and accents); a category whose name
    /// matches keeps all its applications. Empty groups are left out while searching.
    public func matching(_ query: String) -> [PickerGroup] {
        let words = query.split(whereSeparator: \.isWhitespace).map(String.init)
        guard !words.isEmpty else { return groups }
        func matches(_ texts: [String]) -> Bool {
            words.allSatisfy { word in texts.contains { $0.range(of: word, options: [.caseInsensitive, .diacriticInsensitive]) != nil } }
        }
        return groups.compactMap { group in
            if matches([group.title, group.categoryID]) { return group }
            let applications = group.applications.filter { matches([$0.name, $0.id]) }
            return applications.isEmpty ? nil : PickerGroup(categoryID: group.categoryID, title: group.title, applications: applications)
        }
    }
}
