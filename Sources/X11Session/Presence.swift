import ScreenwardCore
import SessionDisplay

/// When changes on the focused window are motion someone watches, from XDamage's samples.
///
/// The damage watcher takes what was drawn in the focused window at most once every
/// `sampleInterval`, and only after something was drawn (a window that draws nothing costs
/// nothing). A sample counts when what changed covers at least `minimumFraction` of the window
/// and at least `minimumArea` pixels: a blinking text cursor (78 px of an xterm, 0.05 %), a
/// spinner or a clock's hand does not; a video does (320×240 is 7–9 % of a browser's window).
/// Counting samples are motion once they follow one another without a pause for `sustained`:
/// a page that draws itself once, a window redrawn as it takes the focus or a menu's flash are
/// one sample, a video is one every half second.
public struct MotionRule: Sendable {
    public static let sampleInterval: Duration = .milliseconds(500)
    public static let minimumFraction = 0.01
    public static let minimumArea = 64 * 64
    public static let sustained: Duration = .seconds(1)

    /// The run of counting samples so far: its first change, and when its last sample was taken.
    private var run: (start: ClockReading, lastSample: ClockReading)?

    public init() {}

    /// Whether `area` pixels changed of a window of `windowArea` counts.
    public static func counts(area: Int, windowArea: Int) -> Bool {
        area >= minimumArea && Double(area) >= minimumFraction * Double(max(1, windowArea))
    }

    /// A sample taken at `at`: `area` pixels of a window of `windowArea` changed since the last
    /// one, the first of them drawn at `firstChange`. Returns the motion it confirms: from the
    /// run's first change to this sample's.
    public mutating func take(area: Int, windowArea: Int, firstChange: ClockReading, at: ClockReading) -> (
        since: ClockReading, latest: ClockReading
    )? {
        guard Self.counts(area: area, windowArea: windowArea) else {
            run = nil
            return nil
        }
        // Drawing went on right after the last sample (within one interval): the same run.
        if let current = run, firstChange.monotonic <= current.lastSample.monotonic + Self.sampleInterval {
            run = (current.start, at)
        } else {
            run = (firstChange, at)
        }
        guard let current = run, current.start.monotonic + Self.sustained <= at.monotonic else { return nil }
        return (current.start, firstChange)
    }

    /// Another window has the focus: its changes start a run of their own.
    public mutating func reset() { run = nil }
}

/// Which clients hold the screen saver off, as the server keeps it (`ScreenSaverSuspend` in the
/// MIT-SCREEN-SAVER extension): a client's requests with `suspend` 1 add to its count, others
/// take one away, and a client that ends holds nothing. Another client cannot ask the server
/// who holds it, so the agent sees the requests as they are made (RECORD). A hold made before
/// the agent started is not seen.
public struct ScreenSaverHolds: Sendable {
    private var holds: [UInt: (pid: Int32?, count: Int)] = [:]

    public init() {}

    /// Client `client` (its resource base), of process `pid`, asked to suspend (`suspend` 1)
    /// or resume the screen saver.
    public mutating func request(client: UInt, pid: Int32?, suspend: UInt32) {
        if suspend == 1 {
            let count = holds[client]?.count ?? 0
            holds[client] = (holds[client]?.pid ?? pid, count + 1)
        } else if let held = holds[client] {
            holds[client] = held.count > 1 ? (held.pid, held.count - 1) : nil
        }
    }

    /// Client `client` ended; returns whether it held the screen saver off.
    @discardableResult
    public mutating func clientEnded(_ client: UInt) -> Bool {
        holds.removeValue(forKey: client) != nil
    }

    /// Whether a client of process `pid` holds the screen saver off.
    public func isHeld(byProcess pid: Int32?) -> Bool {
        guard let pid else { return false }
        return holds.values.contains { $0.pid == pid && $0.count > 0 }
    }

    /// The processes holding it.
    public var processes: Set<Int32> { Set(holds.values.compactMap(\.pid)) }
}
