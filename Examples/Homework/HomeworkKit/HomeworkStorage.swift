// What Homework's app and its three extensions share. On Apple's platforms this is an
// app group container; here it is a folder of the person's: $HOMEWORK_HOME, else
// $XDG_DATA_HOME/homework (~/.local/share/homework).
import FamilyControls
import Foundation
import ManagedSettings

/// Homework's folder and the two files in it.
public struct HomeworkStorage: Sendable {
    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    public static var standard: HomeworkStorage {
        let env = ProcessInfo.processInfo.environment
        if let home = env["HOMEWORK_HOME"], !home.isEmpty { return HomeworkStorage(directory: URL(fileURLWithPath: home)) }
        let data = env["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
            ?? URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent(".local/share")
        return HomeworkStorage(directory: data.appendingPathComponent("homework"))
    }

    /// What the guardian chose (the app's model).
    public var model: HomeworkModelFile { HomeworkModelFile(url: directory.appendingPathComponent("model.json")) }

    /// The applications access was asked for.
    public var requests: HomeworkRequests { HomeworkRequests(url: directory.appendingPathComponent("access-requests.json")) }
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
        selectionToDiscourage: FamilyActivitySelection, selectionToEncourage: FamilyActivitySelection, threshold: DateComponents,
        intervalStart: DateComponents = DateComponents(hour: 0, minute: 0), intervalEnd: DateComponents = DateComponents(hour: 23, minute: 59)
    ) {
        self.selectionToDiscourage = selectionToDiscourage
        self.selectionToEncourage = selectionToEncourage
        self.threshold = threshold
        self.intervalStart = intervalStart
        self.intervalEnd = intervalEnd
    }
}

public struct HomeworkModelFile: Sendable {
    public let url: URL

    /// The saved model; nil when none was saved. A damaged file is an error, not "nothing chosen".
    public func load() throws -> HomeworkModel? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try JSONDecoder().decode(HomeworkModel.self, from: Data(contentsOf: url))
    }

    public func save(_ model: HomeworkModel) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try JSONEncoder().encode(model).write(to: url, options: .atomic)
    }

    public func remove() throws {
        if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
    }
}

/// The applications (by token) access was asked for.
public struct HomeworkRequests: Sendable {
    public let url: URL

    public func asked() -> Set<ApplicationToken> {
        guard let data = try? Data(contentsOf: url) else { return [] }
        return (try? JSONDecoder().decode(Set<ApplicationToken>.self, from: data)) ?? []
    }

    public func ask(for application: ApplicationToken) throws {
        var all = asked()
        all.insert(application)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try JSONEncoder().encode(all).write(to: url, options: .atomic)
    }

    public func clear() throws {
        if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
    }
}
