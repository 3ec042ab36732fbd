import Foundation
import ScreenwardCore
import SystemAccounts

/// Desktop notifications in a managed user's session. A user's session bus lets only
/// that user in (not root, not the agent's system user), so the daemon runs
/// `screenward notify` as the user for each one, with nothing of its own environment.
/// The child can see that process, and end it: it only shows a warning.
struct SessionNotifier: Sendable {
    /// `screenward`, beside the daemon.
    let program: URL
    /// The user's session bus; `%u` is their uid.
    let busTemplate: String
    let log: DaemonLog

    func notify(_ notice: RulesApp.Notice, user: ManagedUser) {
        let bus = busTemplate.replacingOccurrences(of: "%u", with: String(user.uid))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = [
            "--reuid=\(user.uid)", "--regid=\(Self.primaryGroup(of: user.uid))", "--clear-groups", "--no-new-privs",
            "--",
            program.path, "notify", "--bus", bus, "--summary", notice.title, "--body", notice.body,
        ]
        process.environment = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        let log = log
        process.terminationHandler = { finished in
            guard finished.terminationStatus != 0 else { return }
            let reason = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            log.warning(
                """
                \(user.name): the warning \"\(notice.title)\" was not shown: \
                \(reason.isEmpty ? "screenward notify exited \(finished.terminationStatus)" : reason)
                """
            )
        }
        do {
            try process.run()
        } catch {
            log.warning(
                "\(user.name): the warning \"\(notice.title)\" was not shown: cannot run \(program.path): \(error)")
        }
    }

    private static func primaryGroup(of uid: UInt32) -> UInt32 {
        (try? SystemAccountDirectory().account(uid: uid))??.gid ?? uid
    }
}
