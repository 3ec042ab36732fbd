import ScreenwardBasics

/// Whether someone is in front of the focused window, from everything that says so: input
/// (the server's IDLETIME, which `XResetScreenSaver` also resets), motion on the focused window
/// (`MotionRule`, from XDamage), and the focused application holding the screen saver off
/// (`XScreenSaverSuspend`, `ScreenSaverHolds`). A blanked screen (the screen saver on) is never
/// watched. A plain value: the watchers feed it what the X server said, and it answers with the
/// transitions the accountant takes and when to look again.
///
/// The evidence runs out `threshold` after its last moment: the last input, the last motion,
/// the moment a hold ended. When it runs out, the interval ends at that last moment, not when
/// it was noticed, as it always did at the last input.
public struct Presence: Sendable {
    public enum Evidence: Sendable {
        /// No input for the threshold; the last came at `lastInput` (IdleWatcher), and that
        /// was noticed at `at`.
        case inputIdle(lastInput: ClockReading, at: ClockReading)
        /// Input came back at `at`.
        case inputReturned(at: ClockReading)
        /// The focused window kept changing from `since` (the run's first change) to at least
        /// `latest` (MotionRule).
        case motion(since: ClockReading, latest: ClockReading)
        /// From `at` on, the focused application holds the screen saver off, or no longer does
        /// (it released it, it ended, or the focus went to another application).
        case holding(Bool, at: ClockReading)
        /// The screen saver came on (the screen is blanked) or went off.
        case blanked(Bool, at: ClockReading)
        /// A look at `at`, when `deadline` came.
        case check(at: ClockReading)

        /// What it is, for the log.
        public var name: String {
            switch self {
            case .inputIdle: "no input"
            case .inputReturned: "input"
            case .motion: "motion in the focused window"
            case .holding: "the focused application holding the screen saver off"
            case .blanked: "the screen saver"
            case .check: "a look"
            }
        }
    }

    public let threshold: Duration
    public private(set) var isPresent: Bool
    private var inputIdle: Bool
    /// While input is idle: when the last came.
    private var lastInput: ClockReading?
    private var lastMotion: ClockReading?
    private var holding = false
    private var holdEnded: ClockReading?
    private var blanked = false

    /// Starts present with recent input, as the agent does.
    public init(threshold: Duration) {
        self.threshold = threshold
        isPresent = true
        inputIdle = false
    }

    /// The latest moment that said someone was there, once input is idle.
    private var lastEvidence: ClockReading? {
        [lastInput, lastMotion, holdEnded].compactMap { $0 }.max { $0.monotonic < $1.monotonic }
    }

    /// Whether something other than the last moment's age keeps the person present: input
    /// not idle, or a hold.
    private var heldOpen: Bool { !inputIdle || holding }

    /// When the evidence runs out if nothing new comes: a `.check` is due then. Nil while
    /// absent, or while input or a hold keeps the person present.
    public var deadline: ClockReading? {
        guard isPresent, !heldOpen, let last = lastEvidence else { return nil }
        return last.advanced(by: threshold)
    }

    /// Takes one piece of evidence; returns the change of presence it makes, dated when it
    /// really happened.
    public mutating func take(_ evidence: Evidence) -> IdleTransition? {
        switch evidence {
        case .inputIdle(let last, let time):
            inputIdle = true
            lastInput = last
            return settle(at: time, endingAt: nil)
        case .inputReturned(let time):
            inputIdle = false
            lastInput = nil
            return settle(at: time, endingAt: nil)
        case .motion(let since, let latest):
            guard !blanked else { return nil }
            if lastMotion.map({ $0.monotonic < latest.monotonic }) ?? true { lastMotion = latest }
            return settle(at: latest, endingAt: nil, returningAt: since)
        case .holding(let held, let time):
            guard held != holding else { return nil }
            holding = held
            if !held { holdEnded = time }
            return settle(at: time, endingAt: nil)
        case .blanked(let blank, let time):
            guard blank != blanked else { return nil }
            // The moment it blanked ends what input or a hold kept open; what only the last
            // moment's age kept open ended at that moment.
            let end = heldOpen ? time : lastEvidence.map { $0.monotonic < time.monotonic ? $0 : time } ?? time
            blanked = blank
            // Nothing seen before a blank carries over it: new evidence must come.
            lastMotion = nil
            holdEnded = nil
            return settle(at: time, endingAt: end)
        case .check(let time):
            return settle(at: time, endingAt: nil)
        }
    }

    /// Whether the evidence says present at `now`.
    private func present(at now: ClockReading) -> Bool {
        guard !blanked else { return false }
        if heldOpen { return true }
        guard let last = lastEvidence else { return false }
        return now.monotonic < last.monotonic + threshold
    }

    /// Presence as the evidence says at `now`; a return is dated `returningAt` (the start of
    /// the motion that brought it) or `now`, an end at `blankEnd` or the last evidence.
    private mutating func settle(
        at now: ClockReading, endingAt blankEnd: ClockReading?, returningAt: ClockReading? = nil
    ) -> IdleTransition? {
        let shouldBe = present(at: now)
        guard shouldBe != isPresent else { return nil }
        isPresent = shouldBe
        if shouldBe { return .returned(at: returningAt ?? now) }
        return .becameIdle(lastInput: blankEnd ?? lastEvidence ?? now)
    }
}

extension ClockReading {
    /// The reading `interval` after this one, assuming no suspend or clock jump in between.
    func advanced(by interval: Duration) -> ClockReading {
        earlier(by: .zero - interval)
    }
}
