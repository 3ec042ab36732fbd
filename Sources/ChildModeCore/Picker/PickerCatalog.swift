import Foundation
import ScreenwardBasics
import UsageLedger

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

/// One website the activity picker lists: seen in a browser, or typed by the person.
public struct PickerWebsite: Hashable, Sendable {
    /// The registrable domain in ASCII (`xn--bcher-kva.de`): the id `selection.issue` takes.
    public var domain: String
    /// The category the categories table gives it, if any: ticking that category covers it.
    public var categoryID: String?

    public init(domain: String, categoryID: String?) {
        self.domain = domain
        self.categoryID = categoryID
    }

    /// How a person reads it (Unicode for an internationalised name).
    public var name: String { HostName.readable(domain) }
}

/// A category of the picker's list with its applications, in the order shown.
public struct PickerGroup: Hashable, Sendable {
    public var categoryID: String
    public var title: String
    public var applications: [PickerApplication]
}

/// What the activity picker lists: the installed applications (the desktop entries a
/// menu shows) and those seen in use, grouped by activity category; then the websites
/// seen in use and those typed, by name, each with its category if the table gives one.
///
/// Categories come in the category table's order, except Other, which comes last;
/// applications by name, ignoring case and accents. Every category of the table is
/// listed, even an empty one, so a whole category can be picked before any of its
/// applications is installed (as on Apple's platforms).
public struct PickerCatalog: Sendable {
    public let groups: [PickerGroup]
    /// In name order. Websites are a section of their own, not one per category: most have
    /// no category (the table names a few hundred), and ticking Other does not cover them.
    public private(set) var websites: [PickerWebsite]

    public init(groups: [PickerGroup], websites: [PickerWebsite] = []) {
        self.groups = groups
        self.websites = websites.sorted(by: Self.listOrder)
    }

    /// - Parameters:
    ///   - seen: applications the ledger has seen in use; an entry of the catalog with
    ///     the same id wins (it has the icon), and ones no longer installed are still listed.
    ///   - websites: registrable domains (ASCII) seen in use or chosen before.
    ///   - language: the category names' language (`en`, `ko`, `vi`).
    public init(
        catalog: ApplicationCatalog, seen: [KnownApplication], websites: [String] = [], categories: CategoryTable,
        language: String
    ) {
        var applications: [String: PickerApplication] = [:]
        for entry in catalog.entries where !entry.noDisplay {
            applications[entry.id] = PickerApplication(
                id: entry.id, name: entry.name, icon: entry.iconName,
                categoryID: categories.category(desktopID: entry.id, entryCategories: entry.categories))
        }
        for app in seen where applications[app.publicID] == nil && catalog.entry(id: app.publicID) == nil {
            let desktopID = app.publicID.hasSuffix(".desktop") ? app.publicID : nil
            applications[app.publicID] = PickerApplication(
                id: app.publicID, name: app.displayName,
                categoryID: categories.category(desktopID: desktopID, entryCategories: app.categories))
        }
        let byCategory = Dictionary(grouping: applications.values, by: \.categoryID)
        let order = categories.categories.map(\.id).filter { $0 != CategoryTable.other } + [CategoryTable.other]
        groups = order.map { id in
            PickerGroup(
                categoryID: id, title: categories.displayName(of: id, language: language),
                applications: (byCategory[id] ?? []).sorted(by: Self.listOrder))
        }
        self.websites = Set(websites).map { PickerWebsite(domain: $0, categoryID: categories.category(ofWebsite: $0)) }
            .sorted(by: Self.listOrder)
    }

    private static func listOrder(_ a: PickerApplication, _ b: PickerApplication) -> Bool {
        inNameOrder(a.name, a.id, b.name, b.id)
    }

    private static func listOrder(_ a: PickerWebsite, _ b: PickerWebsite) -> Bool {
        inNameOrder(a.name, a.domain, b.name, b.domain)
    }

    private static func inNameOrder(_ nameA: String, _ idA: String, _ nameB: String, _ idB: String) -> Bool {
        switch nameA.compare(nameB, options: [.caseInsensitive, .diacriticInsensitive]) {
        case .orderedAscending: true
        case .orderedDescending: false
        case .orderedSame: idA < idB
        }
    }

    public func website(domain: String) -> PickerWebsite? {
        websites.first { $0.domain == domain }
    }

    /// Lists a website the person typed (its category from `categories`), in name order;
    /// returns where it now is in `websites`. One already listed stays where it is.
    @discardableResult
    public mutating func add(website domain: String, categories: CategoryTable) -> Int {
        if let index = websites.firstIndex(where: { $0.domain == domain }) { return index }
        let website = PickerWebsite(domain: domain, categoryID: categories.category(ofWebsite: domain))
        let index = websites.firstIndex { Self.listOrder(website, $0) } ?? websites.endIndex
        websites.insert(website, at: index)
        return index
    }

    public var applicationCount: Int { groups.reduce(0) { $0 + $1.applications.count } }

    public func application(id: String) -> PickerApplication? {
        groups.lazy.flatMap(\.applications).first { $0.id == id }
    }

    /// The websites shown for a search: those whose name or domain contains every word of
    /// `query`, or whose category's name does (as for applications); all of them without one.
    public func matchingWebsites(_ query: String) -> [PickerWebsite] {
        let words = Self.words(query)
        guard !words.isEmpty else { return websites }
        let titles = Dictionary(uniqueKeysWithValues: groups.map { ($0.categoryID, $0.title) })
        return websites.filter { website in
            let category = website.categoryID.map { [$0, titles[$0] ?? $0] } ?? []
            return Self.matches(words, [website.name, website.domain])
                || (!category.isEmpty && Self.matches(words, category))
        }
    }

    private static func words(_ query: String) -> [String] {
        query.split(whereSeparator: \.isWhitespace).map(String.init)
    }

    private static func matches(_ words: [String], _ texts: [String]) -> Bool {
        words.allSatisfy { word in
            texts.contains { $0.range(of: word, options: [.caseInsensitive, .diacriticInsensitive]) != nil }
        }
    }

    /// The groups as shown for a search: an application matches when its name or id
    /// contains every word of `query` (ignoring case and accents); a category whose name
    /// matches keeps all its applications. Empty groups are left out while searching.
    public func matching(_ query: String) -> [PickerGroup] {
        let words = Self.words(query)
        guard !words.isEmpty else { return groups }
        func matches(_ texts: [String]) -> Bool { Self.matches(words, texts) }
        return groups.compactMap { group in
            if matches([group.title, group.categoryID]) { return group }
            let applications = group.applications.filter { matches([$0.name, $0.id]) }
            return applications.isEmpty
                ? nil : PickerGroup(categoryID: group.categoryID, title: group.title, applications: applications)
        }
    }
}
