import Foundation
import SessionDisplay
import SessionHarness
import X11Session

/// A shield sample as the X server recorded it (`ShieldBenchmark`, `ChildBoundaryBenchmark`).
struct ShieldSpan {
    var start: UInt32
    var end: UInt32
    var shield: WindowID
    var stamped: Bool
    var milliseconds: Double { Double(Int32(bitPattern: end &- start)) }
}

/// Server milliseconds from the first `_NET_ACTIVE_WINDOW` change after `act`
/// (or, `fromClientList`, the first `_NET_CLIENT_LIST` change: a new window
/// managed) to the shield over the window `act` returns (`shield` when known)
/// being viewable with its frame and holding the focus.
func measureShieldSpan(
    driver: FocusDriver, record: ShieldRecord, shield: WindowID? = nil, fromClientList: Bool = false,
    trace: Bool = false,
    _ act: () throws -> WindowID
) throws -> ShieldSpan {
    driver.log.poll()
    record.update()
    let firstClientListChange = driver.log.clientListChangeTimes.count
    let firstChange = driver.log.changeTimes.count
    let firstEntry = driver.log.entries.count
    let target = try act()
    let end = try record.waitForShield(over: target, shield: shield) { driver.log.poll() }
    // The start is in the driver's record by now (the server sent it first); give its connection a moment.
    let deadline = Date().addingTimeInterval(2)
    while true {
        driver.log.poll()
        let changes =
            fromClientList
            ? driver.log.clientListChangeTimes.count > firstClientListChange
            : driver.log.changeTimes.count > firstChange
        if changes { break }
        guard Date() < deadline else {
            throw HarnessError.timedOut(
                "no \(fromClientList ? "_NET_CLIENT_LIST" : "_NET_ACTIVE_WINDOW") change was seen after the request")
        }
        Thread.sleep(forTimeInterval: 0.001)
    }
    let start =
        fromClientList ? driver.log.clientListChangeTimes[firstClientListChange] : driver.log.changeTimes[firstChange]
    let span = ShieldSpan(start: start, end: end.serverTime, shield: end.shield, stamped: end.stamped)
    if trace, span.milliseconds > 50 {
        let changes = driver.log.entries[firstEntry...].map {
            "\($0.window.map { "\($0)" } ?? "none")@\($0.serverTime)"
        }
        print(
            """
            slow: \(span.milliseconds) ms from \(start) to \(end.serverTime)\(end.stamped ? "" : " (read)"): \
            \(changes); \(record.describe(target))
            """
        )
    }
    return span
}

/// Waits until `_NET_CLIENT_LIST` has not changed for half a second.
func settleClientList(_ driver: FocusDriver) throws {
    let deadline = Date().addingTimeInterval(10)
    var count = -1
    var quietSince = Date()
    while Date() < deadline {
        driver.log.poll()
        if driver.log.clientListChangeTimes.count != count {
            count = driver.log.clientListChangeTimes.count
            quietSince = Date()
        } else if Date().timeIntervalSince(quietSince) >= 0.5 {
            return
        }
        Thread.sleep(forTimeInterval: 0.05)
    }
    throw HarnessError.timedOut("the client list kept changing for 10 s")
}
