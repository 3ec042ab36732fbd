import Foundation
import GLibRuntime

/// The X11 desktop session a managed user's greeter should preselect: a Wayland session is
/// ended at once (`SessionAdmission`), so their default is set to one that works when they
/// become managed (and at each start of the daemon, should they have chosen another).
enum X11SessionChoice {
    /// Debian's LightDM installs this one: the system's default X session (/etc/X11/Xsession).
    static let systemDefault = "lightdm-xsession"

    /// The X11 sessions installed in `dataDirectories` (`xsessions/NAME.desktop`): the system's
    /// default if it is there, else the first by name; nil when there is none.
    static func preferred(in dataDirectories: String) -> String? {
        var names: Set<String> = []
        for directory in dataDirectories.split(separator: ":") {
            let folder = "\(directory)/xsessions"
            for file in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            where file.hasSuffix(".desktop") {
                names.insert(String(file.dropLast(".desktop".count)))
            }
        }
        return names.contains(systemDefault) ? systemDefault : names.sorted().first
    }

    /// Sets `user`'s default session; says in the log what came of it.
    static func apply(to user: String, dataDirectories: String, log: DaemonLog) {
        guard let session = preferred(in: dataDirectories) else {
            return log.warning("\(user)'s default desktop session is left as it is: no X11 session is installed")
        }
        do {
            try AccountsServiceUsers.setX11Session(session, of: user)
            log.info("\(user)'s default desktop session is the X11 session \(session) (AccountsService)")
        } catch {
            log.warning(
                """
                \(user)'s default desktop session could not be set to \(session): \(error); the greeter offers \
                what they chose last (a Wayland session other than sway's is ended)
                """
            )
        }
    }
}
