// What Homework's app and its three extensions share. On Apple's platforms this is an
// app group container; on Screenward it is `AppGroupStorage`, kept by the state owner:
// the monitor, which a managed account's daemon runs as a user of its own, reads what
// the guardian chose in the app, and the child cannot edit it.
import FamilyControls
import Foundation
import ManagedSettings

/// Homework's two shared values.
public struct HomeworkStorage: Sendable {
    let group: AppGroupStorage

    public init(group: AppGroupStorage = .shared) {
        self.group = group
    }

    public static var standard: HomeworkStorage { HomeworkStorage() }

    /// What the guardian chose (the app's model).
    public var model: HomeworkModelValue { HomeworkModelValue(group: group) }

    /// The applications access was asked for.
    public var requests: HomeworkRequests { HomeworkRequests(group: group) }

    /// Whether today's homework is done.
    public var done: HomeworkDone { HomeworkDone(group: group) }
}

/// The guardian's choices: the apps to discourage, the apps to encourage, and how long
/// the encouraged apps must be used before the discouraged ones open again each day.
public struct HomeworkModel: Codable, Hashable, Sendable {
    public var selectionToDiscourage: FamilyActivitySelection
    public var selectionToEncourage: FamilyActivitySelection
    public var threshold: DateComponents
    /// The daily interval (the talk's runs from midnight to 23:59).
    public var intervalStart: DateComponents
    public var intervalEnd: DateComponents

    public init(
        selectionToDiscourage: FamilyActivitySelection, selectionToEncourage: FamilyActivitySelection,
        threshold: DateComponents,
        intervalStart: DateComponents = DateComponents(hour: 0, minute: 0),
        intervalEnd: DateComponents = DateComponents(hour: 23, minute: 59)
    ) {
        self.selectionToDiscourage = selectionToDiscourage
        self.selectionToEncourage = selectionToEncourage
        self.threshold = threshold
        self.intervalStart = intervalStart
        self.intervalEnd = intervalEnd
    }
}

extension HomeworkModel {
    /// Whether the daily interval is the whole day (00:00 to 23:59, the talk's).
    public var coversTheWholeDay: Bool {
        (intervalStart.hour ?? 0, intervalStart.minute ?? 0) == (0, 0)
            && (intervalEnd.hour ?? 0, intervalEnd.minute ?? 0) == (23, 59)
    }
}

public struct HomeworkModelValue: Sendable {
    static let key = "model"
    let group: AppGroupStorage

    /// The saved model; nil when none was saved. A damaged value is an error, not "nothing chosen".
    public func load() throws -> HomeworkModel? {
        guard let data = try group.data(forKey: Self.key) else { return nil }
        return try JSONDecoder().decode(HomeworkModel.self, from: data)
    }

    public func save(_ model: HomeworkModel) throws {
        try group.set(try JSONEncoder().encode(model), forKey: Self.key)
    }

    public func remove() throws {
        try group.set(nil, forKey: Self.key)
    }
}

/// The applications and categories (by token) access was asked for.
public struct HomeworkRequests: Sendable {
    static let key = "access-requests"
    static let categoriesKey = "access-requests-categories"
    let group: AppGroupStorage

    public func asked() -> Set<ApplicationToken> { read(Self.key) }
    public func askedCategories() -> Set<ActivityCategoryToken> { read(Self.categoriesKey) }

    public func ask(for application: ApplicationToken) throws {
        try write(Self.key, asked().union([application]))
    }

    public func ask(forCategory category: ActivityCategoryToken) throws {
        try write(Self.categoriesKey, askedCategories().union([category]))
    }

    /// A guardian answered: the shield is no longer waiting.
    public func answered(_ application: ApplicationToken) throws {
        try write(Self.key, asked().subtracting([application]))
    }

    public func answered(category: ActivityCategoryToken) throws {
        try write(Self.categoriesKey, askedCategories().subtracting([category]))
    }

    public func clear() throws {
        try group.set(nil, forKey: Self.key)
        try group.set(nil, forKey: Self.categoriesKey)
    }

    private func read<Item: Decodable & Hashable>(_ key: String) -> Set<Item> {
        guard let data = try? group.data(forKey: key) else { return [] }
        return (try? JSONDecoder().decode(Set<Item>.self, from: data)) ?? []
    }

    private func write<Item: Encodable & Hashable>(_ key: String, _ items: Set<Item>) throws {
        try group.set(items.isEmpty ? nil : try JSONEncoder().encode(items), forKey: key)
    }
}

/// The day the encouraged apps were used for the threshold: a guardian's access ending that
/// day leaves the shields down.
public struct HomeworkDone: Sendable {
    static let key = "done-on"
    let group: AppGroupStorage

    public func isDone(on day: String) -> Bool {
        (try? group.data(forKey: Self.key)).flatMap { $0 }.map { String(decoding: $0, as: UTF8.self) } == day
    }

    public func mark(_ day: String?) throws {
        try group.set(day.map { Data($0.utf8) }, forKey: Self.key)
    }

    /// Today, as the key it is kept under.
    public static func today() -> String {
        let parts = Calendar.current.dateComponents([.year, .month, .day], from: Date())
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }
}
