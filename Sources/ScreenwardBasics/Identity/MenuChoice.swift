/// Chooses among several desktop entries that could own one window the entry a
/// menu presents as the application, so usage and shields go to the id a person
/// picks.
///
/// Packages often install more than one entry per program: Mousepad's editor and
/// its settings (`mousepad --preferences`), VS Code and its hidden URL handler
/// (`code --open-url`). What makes an entry the main one, most telling first:
/// 1. it is shown in menus (not `NoDisplay`);
/// 2. the arguments it adds were given to the process (`--preferences` was, or was
///    not, on its command line);
/// 3. its id, StartupWMClass, Name or program is named like the window;
/// 4. its `Exec=` adds no arguments besides field codes;
/// 5. the shortest id, then the smallest: a stable answer.
struct MenuChoice {
    /// The window's names: WM_CLASS instance and class, and names derived from them.
    var windowNames: [String]
    /// The arguments (after argv[0]) of the window's process, read only when they
    /// could decide; nil when they cannot be read.
    var processArguments: () -> [String]? = { nil }

    /// The best entry; nil only when `candidates` is empty.
    func best(of candidates: [DesktopEntry]) -> DesktopEntry? {
        choose(candidates, mainOnly: false)
    }

    /// The best entry among those that are plausibly this window's application when
    /// the only link is the program they run: one that adds no arguments, is named
    /// like the window, or whose arguments the process was given. Entries that
    /// differ only by arguments the process did not get (`soffice --writer`,
    /// `--calc`) do not say which one this is, so the answer is nil.
    func bestMain(of candidates: [DesktopEntry]) -> DesktopEntry? {
        choose(candidates, mainOnly: true)
    }

    private func choose(_ candidates: [DesktopEntry], mainOnly: Bool) -> DesktopEntry? {
        guard candidates.count > 1 else { return candidates.first }
        let launchArguments = candidates.map { $0.exec.map(ExecCommand.launchArguments(of:)) ?? [] }
        // /proc is read only when some entry adds arguments.
        let given = launchArguments.contains { !$0.isEmpty } ? processArguments().map(Set.init) : nil
        let names = NameForms(windowNames)

        var best: (rank: Rank, entry: DesktopEntry)?
        for (entry, arguments) in zip(candidates, launchArguments) {
            let fit: Int
            if arguments.isEmpty {
                fit = 0
            } else if let given {
                fit = arguments.allSatisfy(given.contains) ? arguments.count : -1
            } else {
                fit = 0  // Unknown: neither confirmed nor contradicted.
            }
            let relation = names.relation(to: entry)
            if mainOnly && (fit < 0 || (fit == 0 && !arguments.isEmpty && relation == 0)) { continue }
            let rank = Rank(
                shown: !entry.noDisplay, argumentFit: fit, relation: relation, addsNoArguments: arguments.isEmpty,
                id: entry.id)
            if best.map({ rank.isBetter(than: $0.rank) }) ?? true { best = (rank, entry) }
        }
        return best?.entry
    }

    private struct Rank {
        var shown: Bool
        var argumentFit: Int
        var relation: Int
        var addsNoArguments: Bool
        var id: String

        func isBetter(than other: Rank) -> Bool {
            if shown != other.shown { return shown }
            if argumentFit != other.argumentFit { return argumentFit > other.argumentFit }
            if relation != other.relation { return relation > other.relation }
            if addsNoArguments != other.addsNoArguments { return addsNoArguments }
            if id.count != other.id.count { return id.count < other.id.count }
            return id < other.id
        }
    }
}

/// A window's names as written and in the lowercased, dashed form desktop ids use.
private struct NameForms {
    let exact: Set<String>
    let folded: Set<String>

    init(_ names: [String]) {
        exact = Set(names)
        folded = Set(
            names.flatMap { name -> [String] in
                let lowered = name.lowercased()
                return [lowered, lowered.replacingOccurrences(of: " ", with: "-")]
            })
    }

    /// 2 when the entry's id or StartupWMClass is a name exactly (GNOME Shell's
    /// preference), 1 when it, the entry's Name or its program's file name is one
    /// ignoring case, else 0.
    func relation(to entry: DesktopEntry) -> Int {
        let stem = ApplicationCatalog.stem(of: entry.id)
        if exact.contains(stem) || entry.startupWMClass.map(exact.contains) == true { return 2 }
        var keys = ApplicationCatalog.nameKeys(of: entry)
        keys.insert(entry.name.lowercased())
        if let wmClass = entry.startupWMClass { keys.insert(wmClass.lowercased()) }
        if let program = entry.exec.flatMap(ExecCommand.program(of:)) {
            keys.insert(ExecCommand.fileName(program).lowercased())
        }
        return keys.isDisjoint(with: folded) ? 0 : 1
    }
}
