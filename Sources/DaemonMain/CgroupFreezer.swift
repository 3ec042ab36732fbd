import Foundation
import SystemAccounts

/// Freezes processes with cgroup v2's freezer: each held process is moved into a frozen
/// cgroup of the daemon's made for it beside its own (`screenward-held-MACHINE-UID-PID`). A frozen
/// process runs no code, whatever signal it gets (SIGCONT does nothing), and the child
/// cannot move it out: that needs write access to a common ancestor's `cgroup.procs`,
/// which is root's. Released, its cgroup is thawed first (that cannot fail for want of a
/// place to go), then it goes back to the cgroup it came from and the held one is removed.
struct CgroupFreezer {
    /// Where the cgroup v2 hierarchy is mounted (`/sys/fs/cgroup`, or
    /// `/sys/fs/cgroup/unified` on a hybrid system).
    let mount: String
    /// This computer's mark in the held cgroups' names (`/etc/machine-id`'s first 12
    /// characters): a daemon on the host sees the cgroups of every container below its own,
    /// and must not thaw a container's daemon's holds as its own leftovers.
    var machine = CgroupFreezer.machineMark()
    static let prefix = "screenward-held-"

    static func machineMark(file: String = "/etc/machine-id") -> String {
        let id = (try? String(contentsOfFile: file, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        let mark = String((id ?? "").filter { $0.isHexDigit }.prefix(12))
        return mark.isEmpty ? "nomachineid" : mark
    }

    /// The first read-write cgroup2 mount in which the daemon can make a cgroup, or nil.
    static func find(mountinfo: String = "/proc/self/mountinfo") -> CgroupFreezer? {
        guard let text = try? String(contentsOfFile: mountinfo, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") {
            let halves = line.components(separatedBy: " - ")
            guard halves.count == 2, halves[1].hasPrefix("cgroup2 ") else { continue }
            let fields = halves[0].split(separator: " ")
            guard fields.count >= 6, fields[5].split(separator: ",").contains("rw") else { continue }
            let freezer = CgroupFreezer(mount: String(fields[4]))
            if freezer.canMakeCgroups() { return freezer }
        }
        return nil
    }

    private func canMakeCgroups() -> Bool {
        let probe = mount + "/" + Self.prefix + "probe-\(getpid())"
        guard (try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: false)) != nil
        else { return false }
        defer { EmptyDirectory.remove(probe) }
        return FileManager.default.fileExists(atPath: probe + "/cgroup.freeze")
    }

    /// The process's cgroup in the v2 hierarchy ("/user.slice/…"), or nil when it is gone.
    func cgroup(of pid: Int32) -> String? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/cgroup", encoding: .utf8) else { return nil }
        return text.split(separator: "\n").first { $0.hasPrefix("0::") }.map { String($0.dropFirst(3)) }
    }

    /// Freezes the process; returns the cgroup it was in, to go back to, and the one it is
    /// held in.
    func freeze(_ pid: Int32, uid: UInt32) throws -> (original: String, held: String) {
        guard let original = cgroup(of: pid) else { throw FreezeError("process \(pid) is gone") }
        if Self.isHeldCgroup(original) { return (original, original) }
        let parent = (original as NSString).deletingLastPathComponent
        let held = (parent == "/" ? "" : parent) + "/" + Self.prefix + "\(machine)-\(uid)-\(pid)"
        let folder = mount + held
        if !FileManager.default.fileExists(atPath: folder) {
            do { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false) } catch {
                throw FreezeError("cannot make the cgroup \(folder): \(error)")
            }
        }
        try write("1", to: folder + "/cgroup.freeze")
        try write(String(pid), to: folder + "/cgroup.procs")
        return (original, held)
    }

    /// Removes a held cgroup whose process is gone.
    func remove(held: String) {
        EmptyDirectory.remove(mount + held)
    }

    /// Thaws the process, then moves it back where it came from (or, if that cgroup is
    /// gone, beside it) and removes its held cgroup.
    func thaw(_ pid: Int32, backTo original: String) {
        guard let held = cgroup(of: pid), Self.isHeldCgroup(held) else { return }
        try? write("0", to: mount + held + "/cgroup.freeze")
        let parent = (original as NSString).deletingLastPathComponent
        for target in [original, parent] where FileManager.default.fileExists(atPath: mount + target + "/cgroup.procs")
        {
            if (try? write(String(pid), to: mount + target + "/cgroup.procs")) != nil { break }
        }
        EmptyDirectory.remove(mount + held)
    }

    /// Whether the process is in one of the daemon's frozen cgroups now.
    func isHeld(_ pid: Int32) -> Bool {
        cgroup(of: pid).map(Self.isHeldCgroup) ?? false
    }

    static func isHeldCgroup(_ path: String) -> Bool {
        (path as NSString).lastPathComponent.hasPrefix(prefix)
    }

    /// Whether a held cgroup's name is this computer's daemon's: its mark, or the mark-less
    /// names of versions before the mark (`screenward-held-UID-PID`).
    func isOwnHeldCgroup(_ path: String) -> Bool {
        let name = (path as NSString).lastPathComponent
        guard name.hasPrefix(Self.prefix) else { return false }
        let rest = name.dropFirst(Self.prefix.count)
        if rest.hasPrefix(machine + "-") { return true }
        let parts = rest.split(separator: "-")
        return parts.count == 2 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
    }

    /// Thaws what an earlier run of this computer's daemon left frozen (it was killed, or
    /// the daemon restarted): those processes run again until their agent covers them anew.
    /// Another computer's holds (a container's, seen from the host) are left alone.
    func thawLeftovers() {
        guard let walker = FileManager.default.enumerator(atPath: mount) else { return }
        var found: [String] = []
        while let entry = walker.nextObject() as? String {
            if walker.level > 8 { walker.skipDescendants() }
            if Self.isHeldCgroup(entry) {
                if isOwnHeldCgroup(entry) { found.append(entry) }
                walker.skipDescendants()
            }
        }
        for entry in found {
            let folder = mount + "/" + entry
            try? write("0", to: folder + "/cgroup.freeze")
            let parent = (folder as NSString).deletingLastPathComponent
            let pids = ((try? String(contentsOfFile: folder + "/cgroup.procs", encoding: .utf8)) ?? "").split(
                separator: "\n")
            for pid in pids { try? write(String(pid), to: parent + "/cgroup.procs") }
            EmptyDirectory.remove(folder)
        }
    }

    private func write(_ text: String, to path: String) throws {
        do { try text.write(toFile: path, atomically: false, encoding: .utf8) } catch {
            throw FreezeError("cannot write \(text) to \(path): \(error)")
        }
    }

    struct FreezeError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
