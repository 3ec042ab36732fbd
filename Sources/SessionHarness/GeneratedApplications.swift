import Foundation

/// Many desktop entries in a private XDG data folder, for the activity picker's
/// benchmark: "Application 001"… spread over the freedesktop categories, with icon
/// names the installed themes have, so icons are really looked up and drawn.
public struct GeneratedApplications {
    /// `XDG_DATA_HOME` (the entries) and `XDG_DATA_DIRS` (the system's, for the icon
    /// themes and the MIME database GTK's image loading needs; its desktop entries are
    /// listed too).
    public let environment: [String: String]
    public let count: Int

    static let categories = [
        "Game;", "Office;", "Network;WebBrowser;", "AudioVideo;", "Graphics;", "Development;", "Utility;", "Education;",
        "Network;InstantMessaging;", "System;",
    ]
    static let icons = [
        "utilities-terminal", "accessories-text-editor", "applications-games", "web-browser", "audio-x-generic",
        "image-x-generic",
    ]

    public init(count: Int, in folder: URL) throws {
        let applications = folder.appendingPathComponent("applications")
        try FileManager.default.createDirectory(at: applications, withIntermediateDirectories: true)
        for index in 1...max(1, count) {
            let entry = """
                [Desktop Entry]
                Type=Application
                Name=Application \(String(format: "%03d", index))
                Exec=application-\(index)
                Icon=\(Self.icons[index % Self.icons.count])
                Categories=\(Self.categories[index % Self.categories.count])

                """
            try entry.write(
                to: applications.appendingPathComponent("application-\(index).desktop"), atomically: false,
                encoding: .utf8)
        }
        self.count = count
        environment = ["XDG_DATA_HOME": folder.path, "XDG_DATA_DIRS": "/usr/local/share:/usr/share"]
    }
}
