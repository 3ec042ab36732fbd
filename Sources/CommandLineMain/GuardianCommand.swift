import ArgumentParser
import Foundation
import ScreenwardCore
import ScreenwardIPC

/// A guardian's own authenticator, for approving at a child's desk: there, any program of
/// the child's can read what is typed, so the dialog asks for a one-time code from the
/// guardian's phone instead of their password. Run from the guardian's own account: the
/// daemon knows who is asking by the socket's peer credentials.
struct GuardianCommand: ParsableCommand {
    // swift-format-ignore
    static let configuration = CommandConfiguration(
        commandName: "guardian",
        abstract: texts("Set up the authenticator app a guardian approves with at a child's desk.", context: "help"),
        discussion: texts("At a child's desk the guardian's dialog asks for a 6-digit one-time code from an authenticator app (TOTP, RFC 6238), never a password. Run `screenward guardian enroll` in your own account (a guardian: root or a member of screenward-guardians) and scan the QR code. From your own account you approve without a code (your tray, or `screenward request approve`).", context: "help"),
        subcommands: [Enroll.self, Unenroll.self])

    struct Enroll: ParsableCommand {
        // swift-format-ignore
        static let configuration = CommandConfiguration(
            abstract: texts("Make a new authenticator secret for yourself and show it once, as a QR code.", context: "help"),
            discussion: texts("The secret is shown only now. Enrolling again makes a new one and replaces the old: codes from the old one stop working. The QR code is drawn by qrencode (Debian package qrencode); without it, type the secret printed below it into your app.", context: "help"))

        func run() throws {
            let connection = DaemonConnection()
            defer { connection.close() }
            let enrollment = try connection.call(ChildMethods.enrollGuardian, Empty())
            let guardian = ["guardian": enrollment.guardian]
            if enrollment.replaced {
                // swift-format-ignore
                print(texts("This replaces {guardian}'s earlier authenticator secret: its codes no longer work. Remove its old entry from your app.", context: "cli", guardian))
            }
            // swift-format-ignore
            print(texts("Scan this with your authenticator app (Aegis, FreeOTP, Google Authenticator, 2FAS…) to add Screenward for {guardian}:", context: "cli", guardian))
            do {
                print(try QRCode.terminalDrawing(of: enrollment.uri), terminator: "")
            } catch {
                FileHandle.standardError.write(Data("screenward: \(ScreenwardCommand.spoken(error))\n".utf8))
            }
            print(texts("Or type it in (time-based, SHA-1, 6 digits, 30 seconds):", context: "cli"))
            print("  " + texts("Secret: {secret}", context: "cli", ["secret": enrollment.secret]))
            print("  " + texts("URI: {uri}", context: "cli", ["uri": enrollment.uri]))
            // swift-format-ignore
            print(texts("This is shown once: keep it to yourself. At a child's desk, choose {guardian} and type the code the app shows.", context: "cli", guardian))
        }
    }

    struct Unenroll: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: texts(
                "Forget your authenticator secret: its codes stop working at a child's desk.", context: "help"))

        func run() throws {
            let connection = DaemonConnection()
            defer { connection.close() }
            let who = try connection.call(ChildMethods.whoAmI, Empty()).user
            if try connection.call(ChildMethods.unenrollGuardian, Empty()) {
                // swift-format-ignore
                print(texts("{guardian}'s authenticator secret is forgotten: its codes no longer approve anything. Remove Screenward from your app.", context: "cli", ["guardian": who]))
            } else {
                print(texts("{guardian} had no authenticator set up.", context: "cli", ["guardian": who]))
            }
        }
    }
}

/// A QR code drawn for a terminal by `qrencode -t ANSIUTF8`.
enum QRCode {
    /// Why there is no drawing, in the reader's language.
    struct Unavailable: Error, CustomStringConvertible {
        let description: String
    }

    static func terminalDrawing(of text: String) throws -> String {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map {
            "\($0)/qrencode"
        }
        .first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let path else {
            // swift-format-ignore
            throw Unavailable(description: texts("cannot draw the QR code: the program qrencode is not installed (Debian package qrencode: `apt-get install qrencode`)", context: "cli"))
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        // The URI goes in on standard input, not as an argument: every local user (the
        // child too) can read a process's arguments in /proc while it runs.
        process.arguments = ["-t", "ANSIUTF8"]
        if !FileManager.default.isExecutableFile(atPath: FileManager.default.currentDirectoryPath) {
            process.currentDirectoryURL = URL(fileURLWithPath: "/")
        }
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        let drawing = output.fileHandleForReading.readDataToEndOfFile()
        let problem = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            // qrencode's own message, as it wrote it.
            let message = String(decoding: problem, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw Unavailable(description: texts("qrencode failed ({message})", context: "cli", ["message": message]))
        }
        return String(decoding: drawing, as: UTF8.self)
    }
}
