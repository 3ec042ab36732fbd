import ArgumentParser
import Foundation
import Glibc
import ScreenwardCore

struct BrowsersCommand: ParsableCommand {
    // swift-format-ignore
    static let configuration = CommandConfiguration(
        commandName: "browsers",
        abstract: texts("Install or remove Screenward's extension in Chromium and Firefox ESR, for every user (as root).", context: "help"),
        discussion: texts("The extension tells Screenward which website each browser window shows, so time is counted per website (`screenward usage --web`). It is installed by the browsers' enterprise policies (/etc/chromium/policies/managed/screenward.json and /etc/firefox/policies/policies.json, where Screenward's entries are added to the administrator's), with each browser's native-messaging manifest for screenward-web-host. A browser that is running takes it at its next start. scripts/install.sh runs `screenward browsers install`; docs/websites.md says what each file does.", context: "help"),
        subcommands: [Install.self, Remove.self])

    struct Install: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: texts("Pack the extension and install it with the policies and manifests.", context: "help"))

        // swift-format-ignore
        @Option(help: ArgumentHelp(texts("Where Screenward is installed: its programs are in PREFIX/bin, its data in PREFIX/share/screenward.", context: "help")))
        var prefix: String?

        @Option(
            help: ArgumentHelp(
                texts("The extension's folder (default: web-extension in Screenward's data folder).", context: "help")))
        var extensionSource: String?

        @Option(
            help: ArgumentHelp(texts("Install into the system image in this folder as if it were /.", context: "help")))
        var root = "/"

        func run() throws {
            // swift-format-ignore
            try requireRoot(texts("only root can install the browsers' policies (they are the machine's, for every user): sudo screenward browsers install", context: "cli"))
            let prefix = prefix ?? installedPrefix()
            let source = try extensionSource.map { URL(fileURLWithPath: $0) } ?? DataDirectory.url(of: "web-extension")
            let installation = BrowserInstallation(root: URL(fileURLWithPath: root), prefix: prefix)
            let installed = try installation.install(extensionSource: source)
            let ids = ["chromium": installed.chromiumExtensionID, "firefox": BrowserInstallation.firefoxExtensionID]
            // swift-format-ignore
            print(texts("Screenward's extension is installed for Chromium (ID {chromium}) and Firefox ESR ({firefox}):", context: "cli", ids))
            for file in installed.files { print("  \(file)") }
            if !FileManager.default.isExecutableFile(
                atPath: URL(fileURLWithPath: root).appendingPathComponent(String(installation.hostProgram.dropFirst()))
                    .path)
            {
                // swift-format-ignore
                print(texts("Note: {program} is not installed yet; the browsers start it for the extension.", context: "cli", ["program": installation.hostProgram]))
            }
            print(texts("Browsers that are running take it when they start again.", context: "cli"))
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: texts(
                "Remove the extension, its policies and manifests (the administrator's other policies stay).",
                context: "help"))

        @Option(help: ArgumentHelp(texts("Where Screenward is installed.", context: "help")))
        var prefix: String?

        @Option(
            help: ArgumentHelp(texts("Remove from the system image in this folder as if it were /.", context: "help")))
        var root = "/"

        func run() throws {
            // swift-format-ignore
            try requireRoot(texts("only root can remove the browsers' policies (they are the machine's, for every user): sudo screenward browsers remove", context: "cli"))
            try BrowserInstallation(root: URL(fileURLWithPath: root), prefix: prefix ?? installedPrefix()).remove()
            // swift-format-ignore
            print(texts("Screenward's extension is removed from Chromium's and Firefox's policies; browsers drop it when they start again.", context: "cli"))
        }
    }
}

/// The browsers' policies are the machine's, for every user: root's alone to change.
/// `refusal` says so, for the command asked (a sentence of its own for each).
private func requireRoot(_ refusal: @autoclosure () -> String) throws {
    guard geteuid() == 0 else { throw ValidationError(refusal()) }
}

/// The prefix this program is installed under (`/usr/local` for /usr/local/bin/screenward).
private func installedPrefix() -> String {
    URL(fileURLWithPath: CommandLine.arguments.first ?? "/usr/local/bin/screenward").resolvingSymlinksInPath()
        .deletingLastPathComponent().deletingLastPathComponent().path
}
