import Foundation

/// Starts a test whose subject is one day's use (a daily limit used up, today's usage) inside
/// one local day: when the day ends within `seconds` (the test's own length, with room), it
/// waits until the day has ended. What the test checks then holds at any hour; at most
/// `seconds` are lost, and only just before midnight. `zone` is where the programs under test
/// count their days (`DaemonRig.systemZone` in child mode).
///
/// A test about a time of day itself (a downtime's start) makes its times from now instead.
public func startWithinOneDay(lasting seconds: TimeInterval, in zone: TimeZone = .current) {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = zone
    let now = Date()
    guard let end = calendar.dateInterval(of: .day, for: now)?.end else { return }
    let left = end.timeIntervalSince(now)
    guard left < seconds else { return }
    print(
        """
        screenward tests: the day ends in \(Int(left.rounded(.up))) s in \(zone.identifier), before this test \
        would; it starts after
        """
    )
    Thread.sleep(forTimeInterval: left + 1)
}
