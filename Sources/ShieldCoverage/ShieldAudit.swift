import ScreenwardCore
import SessionDisplay
import X11Session

/// Whether the shields shown are still what they were made to be. Any client may move,
/// resize, unmap, minimize or destroy a shield, put it in a lower layer, or make it
/// override-redirect (which takes it from the window manager): the shielded app stays held
/// meanwhile, and the picture comes back here. A shield found wrong at two audits in a row
/// (so not while the window manager is still placing it) is to be replaced by a fresh one.
///
/// A policy as a value: it is told what the X server shows and when, and says which shields
/// to replace and why. The presenter runs it `interval` after anything the server tells that
/// could change the picture (a window changed, mapped, unmapped or restacked), and again while
/// `needsAnotherLook` says so; with the shields right and nothing happening, nothing runs.
public struct ShieldAudit {
    /// How long after news from the server the shields are looked at, and how often while a
    /// shield is settling or has a strike against it.
    public static let interval: Duration = .milliseconds(250)
    /// How long a shield just shown is left to the window manager before it is judged.
    public static let settling: Duration = .milliseconds(500)
    /// Audits in a row that must find a shield wrong before it is replaced.
    public static let strikesToReplace = 2

    /// A shield on screen over its window.
    public struct Shown: Sendable {
        public var target: WindowID
        public var targetFrame: ScreenRect
        public var shield: WindowID
        public var shownAt: ContinuousClock.Instant

        public init(target: WindowID, targetFrame: ScreenRect, shield: WindowID, shownAt: ContinuousClock.Instant) {
            self.target = target
            self.targetFrame = targetFrame
            self.shield = shield
            self.shownAt = shownAt
        }
    }

    /// A shield as the X server shows it now.
    public struct Seen: Sendable {
        public var isViewable: Bool
        public var frame: ScreenRect

        public init(isViewable: Bool, frame: ScreenRect) {
            self.isViewable = isViewable
            self.frame = frame
        }
    }

    /// What was found wrong with a shield.
    public enum Problem: Sendable, Equatable, CustomStringConvertible {
        case unmappedOrMinimized
        case movedOrResized(ScreenRect)
        /// A layer changed: the shield went under its window (or the window over it).
        case underItsWindow
        /// Made override-redirect, or destroyed: the window manager no longer shows it.
        case gone

        public var description: String {
            switch self {
            case .unmappedOrMinimized: "unmapped or minimized"
            case .movedOrResized(let frame): "moved or resized (\(frame))"
            case .underItsWindow: "stacked under its window (a layer changed)"
            case .gone: "taken from the window manager or destroyed"
            }
        }
    }

    /// A shield to replace, and why.
    public struct Replacement: Sendable, Equatable {
        public var target: WindowID
        public var problem: Problem

        public init(target: WindowID, problem: Problem) {
            self.target = target
            self.problem = problem
        }
    }

    /// Audits in a row that found each shield wrong.
    private var strikes: [WindowID: Int] = [:]

    public init() {}

    /// A shield was (re)shown: it starts with a clean record.
    public mutating func shown(_ shield: WindowID) {
        strikes[shield] = nil
    }

    /// A shield is gone for good (its window uncovered, or it was replaced).
    public mutating func forget(_ shield: WindowID) {
        strikes[shield] = nil
    }

    /// Looks at every shield shown: `seen` is what the server shows of a shield (nil: not a
    /// managed window any more), `positions` the stacking order (higher is above).
    public mutating func check(
        _ shown: [Shown], seen: (WindowID) -> Seen?, positions: [WindowID: Int], now: ContinuousClock.Instant
    ) -> [Replacement] {
        var replacements: [Replacement] = []
        for cover in shown where now - cover.shownAt > Self.settling {
            guard let problem = Self.problem(of: cover, seen: seen(cover.shield), positions: positions) else {
                strikes[cover.shield] = nil
                continue
            }
            let count = (strikes[cover.shield] ?? 0) + 1
            strikes[cover.shield] = count
            if count >= Self.strikesToReplace {
                replacements.append(Replacement(target: cover.target, problem: problem))
            }
        }
        return replacements
    }

    /// Whether to look again `interval` after `now` without news from the server: while a
    /// shield has a strike against it (the next audit confirms or clears it), or was shown
    /// too recently to be judged.
    public func needsAnotherLook(_ shown: [Shown], now: ContinuousClock.Instant) -> Bool {
        shown.contains { strikes[$0.shield] != nil || now - $0.shownAt <= Self.settling }
    }

    private static func problem(of cover: Shown, seen: Seen?, positions: [WindowID: Int]) -> Problem? {
        guard let seen else { return .gone }
        if !seen.isViewable { return .unmappedOrMinimized }
        if seen.frame != cover.targetFrame { return .movedOrResized(seen.frame) }
        if let shield = positions[cover.shield], let target = positions[cover.target], shield < target {
            return .underItsWindow
        }
        return nil
    }
}
