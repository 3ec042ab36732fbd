import Foundation

/// What `screenward extensions` shows (and prints with `--json`): the installed apps,
/// their extensions, which run now, the manifests skipped, and the recent runs. Made by
/// the agent's command line from the person's own files, or by the system daemon for a
/// managed user.
public struct ExtensionsListing: Codable, Sendable {
    public struct App: Codable, Sendable {
        public var bundleIdentifier: String
        public var displayName: String
        public var extensions: [AppExtension]
        /// The extension points running now.
        public var running: [String]
    }

    public struct Run: Codable, Sendable {
        public var app: String
        public var point: String
        public var pid: Int32?
        public var started: String
        public var ended: String?
        /// Nil while it runs.
        public var outcome: String?
        public var detail: String
    }

    public var apps: [App]
    public var skipped: [String]
    public var runs: [Run]

    /// `running` says which app's extension point runs now ("APP POINT").
    public init(installed: [InstalledApp], skipped: [String], runs: [ExtensionRun], running: Set<String>) {
        apps = installed.sorted { $0.bundleIdentifier < $1.bundleIdentifier }.map { app in
            App(
                bundleIdentifier: app.bundleIdentifier, displayName: app.displayName,
                extensions: app.extensions.values.sorted { $0.point.rawValue < $1.point.rawValue },
                running: app.extensions.keys.map(\.rawValue).filter {
                    running.contains("\(app.bundleIdentifier) \($0)")
                }.sorted())
        }
        self.skipped = skipped
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        self.runs = runs.map {
            Run(
                app: $0.client, point: $0.point, pid: $0.pid, started: formatter.string(from: $0.startedAt),
                ended: $0.endedAt.map(formatter.string(from:)), outcome: $0.outcome?.rawValue, detail: $0.detail)
        }
    }
}

/// Whose extensions to list, and how many recent runs.
public struct ExtensionsQuery: Sendable, Hashable, Codable {
    /// nil: the caller's own (a managed user may ask for no one else's).
    public var user: String?
    public var runs: Int

    public init(user: String?, runs: Int) {
        self.user = user
        self.runs = runs
    }
}
