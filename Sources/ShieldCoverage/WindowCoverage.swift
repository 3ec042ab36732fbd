import ScreenwardCore
import X11Session

/// What the presenter does with one application window when it appears, changes, or the
/// stores change: worked out from what the stores decide for its application and what the
/// presenter already does with it. A policy as a value: no window is touched here.
public enum WindowCoverage<Decision: Equatable> {
    /// The window as the presenter has it now.
    public enum Current {
        /// Not covered.
        case uncovered
        /// Being closed (its application is blocked): left alone until it is gone.
        case closing
        /// Covered under `decision` as the window was `before`; `shieldVisible` says
        /// whether its shield is on screen.
        case covered(before: ClientWindow, decision: Decision, shieldVisible: Bool)
    }

    /// What to do.
    public enum Verdict: Equatable {
        /// Nothing covers it: any shield over it comes down.
        case uncover
        /// Its application may not run at all: any shield comes down and it is closed.
        case block
        /// Being closed already: nothing more.
        case leave
        /// A shield goes over it under `decision`.
        case cover(Decision)
        /// Its shield follows it (`ShieldFollowing`), under `decision` from now.
        case follow([ShieldFollowing.Step], Decision)
    }

    /// The verdict for `window`, whose application is blocked by a store (`blocked`) or
    /// shielded under `decision` (nil: by none), covered as `current`.
    ///
    /// Blocking wins over shielding: a blocked application has nothing to shield.
    public static func verdict(
        for window: ClientWindow, blocked: Bool, decision: Decision?, current: Current, windowIsActive: Bool
    ) -> Verdict {
        if blocked { return .block }
        if case .closing = current { return .leave }
        guard let decision else { return .uncover }
        guard case .covered(let before, let coveredAs, let shieldVisible) = current else { return .cover(decision) }
        let steps = ShieldFollowing.steps(
            before: before, now: window, decision: coveredAs, decisionNow: decision, shieldVisible: shieldVisible,
            windowIsActive: windowIsActive)
        return .follow(steps, decision)
    }
}

/// An application holding the keyboard (a game that grabs the input, an open menu) keeps
/// getting the keys under any window: a shield cannot stop it. The shield's own focus events
/// say when another client grabs the keyboard while it has the focus; a grab still held
/// `patience` later (so not the window manager's passing Alt+Tab grab) closes the
/// application, unless the grab is the presenter's own input hold (a key held down on a
/// covered window). Nothing is probed: grabbing the input to test for a grab would disturb
/// the window manager's focus.
///
/// A policy as a value: told of grabs and when, it says which covered windows to close; the
/// presenter keeps one timer at `deadline`.
public struct KeyboardGrabChecks<Target: Hashable> {
    /// How long a grab may last before it is not the window manager's.
    public static var patience: Duration { .milliseconds(400) }

    private var heldSince: [Target: ContinuousClock.Instant] = [:]

    public init() {}

    /// The keyboard was grabbed (`held`) or let go while the shield over `target` had the focus.
    public mutating func grab(over target: Target, held: Bool, at now: ContinuousClock.Instant) {
        heldSince[target] = held ? now : nil
    }

    /// `target` is no longer covered.
    public mutating func forget(_ target: Target) { heldSince[target] = nil }

    /// When the next grab has been held for `patience` (nil: none is held).
    public var deadline: ContinuousClock.Instant? { heldSince.values.min().map { $0 + Self.patience } }

    /// The windows whose grab has been held for `patience` by `now`, to close: those still
    /// shown under a shield (`shielded`), unless the grab is the presenter's own hold.
    /// Each grab is checked once.
    public mutating func due(
        at now: ContinuousClock.Instant, shielded: (Target) -> Bool, holdIsOwnGrab: Bool
    ) -> [Target] {
        let due = heldSince.filter { $0.value + Self.patience <= now }
        for target in due.keys { heldSince[target] = nil }
        guard !holdIsOwnGrab else { return [] }
        return due.sorted { $0.value < $1.value }.map(\.key).filter(shielded)
    }
}
