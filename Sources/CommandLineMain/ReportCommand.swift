import ArgumentParser
import Foundation
import ScreenwardCore

/// `screenward report` runs `screenward-report`, the program with the report window and
/// the PNG writer: the command line itself links no GTK.
struct ReportCommand: ParsableCommand {
    // swift-format-ignore
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: texts("Show where the time went: charts in a window, or a PNG file (--png FILE).", context: "help"),
        discussion: texts("Options (all passed to screenward-report): --png FILE, --week, --since T, --until T, --width N, --user CHILD (guardians), --app BUNDLE --context NAME [--filter-json JSON] (an app's report extension). `screenward report --help` shows them in full.", context: "help"))

    // swift-format-ignore
    @Argument(parsing: .captureForPassthrough, help: ArgumentHelp(texts("Options for screenward-report.", context: "help")))
    var options: [String] = []

    func run() throws {
        guard let program = Self.reportProgram() else {
            // swift-format-ignore
            throw ValidationError(texts("screenward-report is not installed (looked beside this program and on PATH): install the screenward package (or run scripts/install.sh)", context: "cli"))
        }
        try SiblingProgram.run(URL(fileURLWithPath: program), options)
    }

    /// Beside this program first (a build folder, /usr/local/bin), then on PATH.
    static func reportProgram() -> String? {
        let name = "screenward-report"
        let beside = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent(name).path
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin"
        return ([beside] + path.split(separator: ":").map { "\($0)/\(name)" }).first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }
}
