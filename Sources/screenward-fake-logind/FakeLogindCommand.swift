import ArgumentParser
import Foundation
import GLibRuntime
import ScreenwardTesting
import X11Session

/// Test support: plays systemd-logind on a private D-Bus bus (never the system
/// bus), so that tests can drive `LogindWatcher` and `LogindSessions`. Prints
/// `ready <first session's path>` once it owns org.freedesktop.login1, then follows
/// commands on standard input, answering each with `ok <command>` once its signals are
/// on the bus, or `error <command>` (the reason on standard error):
///
///     lock | unlock                         set LockedHint, emit PropertiesChanged with the value
///     lock-invalidated | unlock-invalidated set LockedHint, emit PropertiesChanged invalidating it
///     lock-signal | unlock-signal           emit the session's Lock / Unlock signal
///     sleep | wake                          emit PrepareForSleep(true / false)
///     malformed                             emit those signals with arguments of the wrong types
///     lookups                               print `lookups <the session lookups clients made>`
///
///     add-session ID [key=value…]           add a session, emit SessionNew; keys: uid name type
///                                           display active state remote leader class seat locked
///                                           service tty (booleans yes/no) and malformed=yes
///                                           (wrong-typed properties)
///     set-session ID key=value…             change a session, emit PropertiesChanged with the values
///     remove-session ID                     remove a session, emit SessionRemoved
///     malformed-session-signals ID          emit session signals with arguments of the wrong types
///     deny-session-control yes|no           refuse LockSession/TerminateSession with AccessDenied
///     sessions                              print `sessions <ids, in order>`
///     calls                                 print `calls <LockSession/TerminateSession calls, comma-separated>`
///     quit
///
/// LockSession emits the session's Lock and sets its LockedHint; TerminateSession
/// removes the session (SessionRemoved). Both are recorded for `calls`.
@main
struct FakeLogindCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "screenward-fake-logind",
        abstract: "A fake systemd-logind on a private D-Bus bus, for tests.")

    @Option(help: "The private bus to serve on, as dbus-daemon --print-address prints it.")
    var address: String

    @Option(name: .customLong("session-id"), help: "The session's id.")
    var sessionID = "1"

    @Flag(help: "Start with LockedHint true.")
    var locked = false

    @Flag(
        name: .customLong("no-session-by-pid"),
        help: "Fail GetSessionByPID, as logind does for a process outside any session.")
    var noSessionByPID = false

    @Flag(name: .customLong("malformed-replies"), help: "Answer GetSessionByPID and LockedHint with strings.")
    var malformedReplies = false

    func run() throws {
        let loop = MainLoop()
        var options = FakeLogindService.Options()
        options.sessionID = sessionID
        options.lockedHint = locked
        options.answersGetSessionByPID = !noSessionByPID
        options.malformedReplies = malformedReplies
        let service: FakeLogindService
        do {
            service = try FakeLogindService(address: address, options: options)
        } catch {
            throw ValidationError("\(error)")
        }
        emit("ready \(service.sessionPath)")
        loop.readLines(
            from: 0,
            onLine: { line in
                if !execute(line.trimmingCharacters(in: .whitespaces), on: service) { loop.quit() }
            },
            onEnd: { loop.quit() })
        loop.onSignal(SIGTERM) { loop.quit() }
        loop.onSignal(SIGINT) { loop.quit() }
        loop.run()
    }

    /// Returns false to stop.
    private func execute(_ command: String, on service: FakeLogindService) -> Bool {
        let words = command.split(separator: " ").map(String.init)
        do {
            switch words.first ?? "" {
            case "": return true
            case "quit": return false
            case "lock": service.setLocked(true)
            case "unlock": service.setLocked(false)
            case "lock-invalidated": service.setLocked(true, announcing: .invalidation)
            case "unlock-invalidated": service.setLocked(false, announcing: .invalidation)
            case "lock-signal": service.emitLockSignal(true)
            case "unlock-signal": service.emitLockSignal(false)
            case "sleep": service.prepareForSleep(true)
            case "wake": service.prepareForSleep(false)
            case "malformed": service.emitMalformedSignals()
            case "lookups": emit("lookups \(service.lookups.joined(separator: ", "))")
            case "add-session":
                try service.addSession(
                    FakeLogindService.Session(id: try sessionID(words), fields: Array(words.dropFirst(2))))
            case "set-session": try service.updateSession(id: try sessionID(words), fields: Array(words.dropFirst(2)))
            case "remove-session": try service.removeSession(id: try sessionID(words))
            case "malformed-session-signals": try service.emitMalformedSessionSignals(id: try sessionID(words))
            case "deny-session-control" where words.count == 2 && ["yes", "no"].contains(words[1]):
                service.deniesSessionControl = words[1] == "yes"
            case "sessions": emit("sessions \(service.sessions.map(\.id).joined(separator: " "))")
            case "calls": emit("calls \(service.calls.joined(separator: ", "))")
            default: throw FakeLogindCommandError(description: "unknown command")
            }
        } catch {
            FileHandle.standardError.write(Data("screenward-fake-logind: cannot do \"\(command)\": \(error)\n".utf8))
            emit("error \(command)")
            return true
        }
        service.flush()
        emit("ok \(command)")
        return true
    }

    private func sessionID(_ words: [String]) throws -> String {
        guard words.count >= 2 else { throw FakeLogindCommandError(description: "which session?") }
        return words[1]
    }
}

private struct FakeLogindCommandError: Error, CustomStringConvertible {
    var description: String
}

/// Writes a line to standard output at once (a pipe would otherwise buffer it).
private func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
