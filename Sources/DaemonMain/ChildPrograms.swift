import Foundation
import ScreenwardCore
import SystemAccounts

/// The programs each managed user runs, read from /proc as root a few times a second and
/// whenever an agent asks about a window's client: what their agents identify windows by,
/// and what tells the programs the system did not install.
///
/// Each process's executable is read again at every scan (a process may exec another
/// program under the same pid); its owner is read once (a process cannot change its real
/// uid back to the child's from another's).
final class ChildPrograms {
    private let installed: InstalledPrograms
    private var origins: [UInt32: ProgramOrigins] = [:]
    /// pid → the real uid it runs as, for every process seen.
    private var owners: [Int32: UInt32] = [:]
    /// Kernel threads (kthreadd's children): root's for good.
    private var kernelThreads: Set<Int32> = []
    /// uid → pid → what it is.
    private(set) var tables: [UInt32: [Int32: ProgramFacts]] = [:]
    private let procRoot: String

    init(installed: InstalledPrograms, procRoot: String = "/proc") {
        self.installed = installed
        self.procRoot = procRoot
    }

    /// The managed users now: the others' tables are dropped.
    func manage(_ users: [(uid: UInt32, gid: UInt32, name: String)]) {
        let uids = Set(users.map(\.uid))
        for uid in tables.keys where !uids.contains(uid) { tables[uid] = nil }
        for uid in origins.keys where !uids.contains(uid) { origins[uid] = nil }
        for user in users where origins[user.uid] == nil {
            var groups: Set<UInt32> = [user.gid]
            if let account = try? UnixAccount.withID(UserID(rawValue: user.uid)),
                let supplementary = try? supplementaryGroups(of: account)
            {
                groups.formUnion(supplementary.map(\.gid.rawValue))
            }
            origins[user.uid] = ProgramOrigins(uid: user.uid, groups: groups)
            tables[user.uid] = [:]
        }
    }

    /// Reads every process; returns the users whose table changed.
    func scan() -> Set<UInt32> {
        let pids = ((try? FileManager.default.contentsOfDirectory(atPath: procRoot)) ?? []).compactMap(Int32.init)
        let alive = Set(pids)
        for pid in owners.keys where !alive.contains(pid) {
            owners[pid] = nil
            kernelThreads.remove(pid)
        }
        var fresh: [UInt32: [Int32: ProgramFacts]] = tables.mapValues { _ in [:] }
        for pid in pids {
            guard let uid = owner(of: pid), fresh[uid] != nil, let facts = facts(of: pid, uid: uid) else { continue }
            fresh[uid]?[pid] = facts
        }
        for uid in fresh.keys { Self.markTerminalsShowingTextBrowsers(&fresh[uid]!, procRoot: procRoot) }
        var changed: Set<UInt32> = []
        for (uid, table) in fresh where tables[uid] != table {
            tables[uid] = table
            changed.insert(uid)
        }
        return changed
    }

    /// Reads these processes now (an agent asks about new windows' clients); returns
    /// whether the user's table changed.
    func inspect(_ pids: [Int32], of uid: UInt32) -> Bool {
        guard tables[uid] != nil else { return false }
        var changed = false
        for pid in pids.prefix(64) where owner(of: pid) == uid {
            let facts = facts(of: pid, uid: uid)
            if tables[uid]?[pid] != facts {
                tables[uid]?[pid] = facts
                changed = true
            }
        }
        return changed
    }

    /// The process, if it is `uid`'s now.
    func facts(pid: Int32, of uid: UInt32) -> ProgramFacts? {
        guard owner(of: pid) == uid else { return nil }
        return facts(of: pid, uid: uid)
    }

    /// Whose the process is. Known for good once it is not root's: only root's processes change
    /// whose they are (`login`, `su`, `runuser`, a display manager's session: root's, then the
    /// user's, under the same pid), so those are read again at each scan, kernel threads aside.
    private func owner(of pid: Int32) -> UInt32? {
        if let known = owners[pid], known != 0 || kernelThreads.contains(pid) { return known }
        // The real uid, from status: a process that made itself non-dumpable is root's in
        // /proc's listing, but its status still says whose it is.
        guard let status = try? String(contentsOfFile: "\(procRoot)/\(pid)/status", encoding: .utf8) else {
            return nil
        }
        func field(_ name: String) -> Substring? {
            status.split(separator: "\n").first { $0.hasPrefix(name) }?
                .split(whereSeparator: { $0 == "\t" || $0 == " " }).dropFirst().first
        }
        guard let uid = field("Uid:").flatMap({ UInt32($0) }) else { return nil }
        owners[pid] = uid
        if uid == 0, pid == 2 || field("PPid:") == "2" { kernelThreads.insert(pid) }
        return uid
    }

    private var applicationsByExecutable: [String: [String]] = [:]

    private func facts(of pid: Int32, uid: UInt32) -> ProgramFacts? {
        // A kernel thread or a zombie has no executable.
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(procRoot)/\(pid)/exe"),
            let origins = origins[uid]
        else { return nil }
        if let known = tables[uid]?[pid], known.executable == executable {
            // A program may load a display library late (dlopen): read again until it has.
            guard !known.installed, !known.usesDisplay else { return known }
            var again = known
            again.usesDisplay = Self.usesDisplay(pid, procRoot: procRoot)
            return again
        }
        let isInstalled = !origins.userControls(executable: executable)
        let applications: [String]
        if let cached = applicationsByExecutable[executable] {
            applications = cached
        } else {
            applications = isInstalled ? installed.applications(forExecutable: executable) : []
            if isInstalled { applicationsByExecutable[executable] = applications }
        }
        return ProgramFacts(
            pid: pid, executable: executable, installed: isInstalled, applications: applications,
            usesDisplay: !isInstalled && Self.usesDisplay(pid, procRoot: procRoot))
    }

    private static let displayLibraries = ["/libxcb.so", "/libX11.so", "/libwayland-client.so"]
    /// More than this of /proc/PID/maps is read as drawing: a program must not hide its
    /// display library behind a flood of mappings.
    private static let mapsLimit = 4 << 20

    /// Whether the process has a display's client library mapped (/proc/PID/maps, as root).
    static func usesDisplay(_ pid: Int32, procRoot: String = "/proc") -> Bool {
        guard let file = FileHandle(forReadingAtPath: "\(procRoot)/\(pid)/maps") else { return false }
        defer { try? file.close() }
        var maps = Data()
        while maps.count <= mapsLimit {
            guard let chunk = try? file.read(upToCount: 256 << 10), !chunk.isEmpty else { break }
            maps.append(chunk)
        }
        if maps.count > mapsLimit { return true }
        let text = String(decoding: maps, as: UTF8.self)
        return displayLibraries.contains { text.contains($0) }
    }

    // MARK: Terminals showing a text browser

    /// Marks each terminal emulator of `table` whose terminal has a text browser in its
    /// foreground (`ProgramFacts.showing`), and unmarks the others. Reads nothing more while
    /// the user runs no text browser (the common case).
    static func markTerminalsShowingTextBrowsers(_ table: inout [Int32: ProgramFacts], procRoot: String = "/proc") {
        for (pid, facts) in table where facts.showing != nil { table[pid]?.showing = nil }
        var shown: [Int: String] = [:]
        for facts in table.values where TextBrowsers.isTextBrowser(facts) {
            if let terminal = foregroundTerminal(of: facts.pid, procRoot: procRoot) {
                shown[terminal] = facts.executable
            }
        }
        guard !shown.isEmpty else { return }
        // Terminal emulators are installed applications (xterm, GNOME Terminal's server…).
        for (pid, facts) in table where facts.installed && !facts.applications.isEmpty {
            if let browser = ptyMasters(of: pid, procRoot: procRoot).lazy.compactMap({ shown[$0] }).first {
                table[pid]?.showing = browser
            }
        }
    }

    /// The index of the pseudo-terminal (`/dev/pts/N`) whose foreground `pid` is; nil when it
    /// has none, or is in its background.
    static func foregroundTerminal(of pid: Int32, procRoot: String = "/proc") -> Int? {
        // "pid (comm) state ppid pgrp session tty_nr tpgid …"; comm may hold spaces and parentheses.
        guard let stat = try? String(contentsOfFile: "\(procRoot)/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 5, let group = Int(fields[2]), let device = Int(fields[4]),
            let foreground = Int(fields[5]),
            group == foreground
        else { return nil }
        let major = (device >> 8) & 0xfff
        let minor = (device & 0xff) | ((device >> 12) & 0xfff00)
        // Unix 98 pseudo-terminals' majors: 136 to 143.
        guard (136...143).contains(major) else { return nil }
        return (major - 136) * 256 + minor
    }

    /// The indexes of the pseudo-terminals whose master side `pid` holds (`/dev/ptmx` opened:
    /// its fdinfo says which).
    static func ptyMasters(of pid: Int32, procRoot: String = "/proc") -> [Int] {
        let directory = "\(procRoot)/\(pid)/fd"
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return descriptors.prefix(1024).compactMap { descriptor in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\(descriptor)"),
                target == "/dev/ptmx" || target == "/dev/pts/ptmx",
                let info = try? String(contentsOfFile: "\(procRoot)/\(pid)/fdinfo/\(descriptor)", encoding: .utf8),
                let line = info.split(separator: "\n").first(where: { $0.hasPrefix("tty-index:") })
            else { return nil }
            return Int(line.dropFirst("tty-index:".count).trimmingCharacters(in: .whitespaces))
        }
    }
}
