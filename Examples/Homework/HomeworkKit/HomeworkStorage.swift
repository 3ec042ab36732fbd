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

/// The applications (by token) access was asked for.
public struct HomeworkRequests: Sendable {
    static let key = "access-requests"
    let group: AppGroupStorage

    public func asked() -> Set<ApplicationToken> {
        guard let data = try? group.data(forKey: Self.key) else { return [] }
        return (try? JSONDecoder().decode(Set<ApplicationToken>.self, from: data)) ?? []
    }

    public func ask(for application: ApplicationToken) throws {
        var all = asked()
        all.insert(application)
        try group.set(try JSONEncoder().encode(all), forKey: Self.key)
    }

    public func clear() throws {
        try group.set(nil, forKey: Self.key)
    }
}
