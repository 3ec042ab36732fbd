import Foundation

/// Which activity category an application or a website belongs to, from its desktop entry
/// and the table in `data/categories.json` (a file distributions may change).
public struct CategoryTable: Sendable, Decodable {
    public struct Category: Sendable, Decodable, Hashable {
        /// A freedesktop main category name, or Social / Other.
        public var id: String
        /// Its name, in English; shown through gettext's catalogs (`msgctxt "category"`).
        public var name: String
    }

    public var categories: [Category]
    public var additionalCategories: [String: String]
    public var applications: [String: String]
    /// Websites' categories, by registrable domain in ASCII (`youtube.com`). A website not
    /// listed has no category.
    public var websites: [String: String]

    enum CodingKeys: String, CodingKey { case categories, additionalCategories, applications, websites }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        categories = try container.decode([Category].self, forKey: .categories)
        additionalCategories = try container.decode([String: String].self, forKey: .additionalCategories)
        applications = try container.decode([String: String].self, forKey: .applications)
        // Tables from before websites have none; names are kept as browsers write them.
        var websites: [String: String] = [:]
        for (name, category) in try container.decodeIfPresent([String: String].self, forKey: .websites) ?? [:] {
            guard let ascii = HostName.ascii(name) else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: [CodingKeys.websites],
                        debugDescription: "\(name.prefix(80)) is not a website's name"))
            }
            websites[ascii] = category
        }
        self.websites = websites
    }

    public static let other = "Other"
    /// The freedesktop main categories, as the menu specification lists them.
    static let mainCategories: Set<String> = [
        "AudioVideo", "Audio", "Video", "Development", "Education", "Game", "Graphics", "Network", "Office",
        "Science", "Settings", "System", "Utility",
    ]

    public enum LoadError: Error, CustomStringConvertible {
        case unreadable(path: String, reason: String)
        case unknownCategory(path: String, category: String, usedBy: String)

        public var description: String {
            switch self {
            case .unreadable(let path, let reason): "cannot read the category table \(path): \(reason)"
            case .unknownCategory(let path, let category, let usedBy):
                "the category table \(path) maps \(usedBy) to \(category), which is not among its categories"
            }
        }
    }

    public static func load(from url: URL) throws -> CategoryTable {
        let table: CategoryTable
        do {
            table = try JSONDecoder().decode(CategoryTable.self, from: Data(contentsOf: url))
        } catch {
            throw LoadError.unreadable(path: url.path, reason: "\(error)")
        }
        let known = Set(table.categories.map(\.id))
        for (key, category) in table.additionalCategories.merging(table.applications, uniquingKeysWith: { a, _ in a })
            .merging(table.websites, uniquingKeysWith: { a, _ in a })
        where !known.contains(category) {
            throw LoadError.unknownCategory(path: url.path, category: category, usedBy: key)
        }
        guard known.contains(other) else {
            throw LoadError.unknownCategory(path: url.path, category: other, usedBy: "the fallback")
        }
        return table
    }

    /// The category of an application with this desktop id (nil: no entry) and
    /// these desktop-entry categories.
    public func category(desktopID: String?, entryCategories: [String]) -> String {
        if let desktopID, let category = applications[desktopID] { return category }
        if let category = entryCategories.lazy.compactMap({ additionalCategories[$0] }).first { return category }
        let known = Set(categories.map(\.id))
        if let main = entryCategories.first(where: { Self.mainCategories.contains($0) }) {
            let folded = main == "Audio" || main == "Video" ? "AudioVideo" : main
            if known.contains(folded) { return folded }
        }
        return Self.other
    }

    /// The category of a website (its registrable domain), or nil: websites not in the table
    /// belong to no category.
    public func category(ofWebsite domain: String) -> String? {
        websites[domain]
    }

    /// The display name of a category in `language` (English where no catalog translates it;
    /// its id when the table has no such category).
    public func displayName(of id: String, language: String) -> String {
        guard let category = categories.first(where: { $0.id == id }) else { return id }
        return Translations.forLanguage(language)(category.name, context: "category")
    }
}
