import ScreenwardCore
import SessionDisplay

/// A Wayland backend, as the agent's overlay shields need it: the display's name (GTK starts
/// there) and the ways its compositor closes windows.
public protocol WaylandBackend: DisplayBackend {
    /// Asks the compositor to close each toplevel whose facts (its app_id and title) `matches`
    /// accepts; returns those asked. Empty where the compositor offers no way (KWin).
    func closeToplevels(where matches: (WindowFacts) -> Bool) -> [WindowID]
    /// Whether `window` is still open; true where the compositor does not tell.
    func isOpen(_ window: WindowID) -> Bool
    /// Takes back what the agent put into the compositor (KWin's script), as the agent stops.
    func stop()
    /// Waits for the compositor to answer a round trip (the agent is not stuck).
    func sync()
}

extension WaylandDisplay: WaylandBackend {
    public func closeToplevels(where matches: (WindowFacts) -> Bool) -> [WindowID] {
        let targets = toplevels.toplevels.filter { toplevel in
            matches(WindowFacts(windowID: toplevel.window.rawValue, appID: toplevel.appID, title: toplevel.title))
        }
        for toplevel in targets { toplevels.close(toplevel.window) }
        return targets.map(\.window)
    }

    public func isOpen(_ window: WindowID) -> Bool {
        toplevels.toplevels.contains { $0.window == window }
    }

    /// Nothing of the agent's is in a wlroots compositor.
    public func stop() {}

    public func sync() { connection.roundtrip() }
}

extension KWinDisplay: WaylandBackend {
    /// KWin's scripts cannot be asked to close a window from outside: the presenter ends the
    /// process instead.
    public func closeToplevels(where matches: (WindowFacts) -> Bool) -> [WindowID] { [] }
    public func isOpen(_ window: WindowID) -> Bool { true }

    public func sync() { connection.roundtrip() }
}

extension GnomeShellDisplay: WaylandBackend {
    /// The extension is not asked to close windows: the presenter ends the process instead.
    public func closeToplevels(where matches: (WindowFacts) -> Bool) -> [WindowID] { [] }
    public func isOpen(_ window: WindowID) -> Bool { true }

    public func sync() { connection.roundtrip() }
}
