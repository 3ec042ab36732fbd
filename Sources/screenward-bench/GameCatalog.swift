import Foundation

/// A private desktop catalog with one entry, `game.desktop` (category Game), and nothing of
/// the system's: the environment an agent under benchmark runs with. Removed with `remove()`.
struct GameCatalog {
    let temporary: URL
    let environment: [String: String]

    init() throws {
        temporary = FileManager.default.temporaryDirectory.appendingPathComponent(
            "screenward-bench-\(UUID().uuidString)")
        let applications = temporary.appendingPathComponent("data/applications")
        try FileManager.default.createDirectory(at: applications, withIntermediateDirectories: true)
        try "[Desktop Entry]\nType=Application\nName=Game\nExec=game\nCategories=Game;\n"
            .write(to: applications.appendingPathComponent("game.desktop"), atomically: true, encoding: .utf8)
        let empty = temporary.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        environment = ["XDG_DATA_HOME": temporary.appendingPathComponent("data").path, "XDG_DATA_DIRS": empty.path]
    }

    /// The agent's home, inside the temporary folder.
    var home: URL { temporary.appendingPathComponent("home") }

    func remove() { try? FileManager.default.removeItem(at: temporary) }
}
