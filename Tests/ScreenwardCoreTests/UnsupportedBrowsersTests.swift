import Foundation
import XCTest

@testable import ScreenwardCore

/// Child mode's rule for browsers the extension does not report for, as a value: what it
/// shields, lifts and records, told the focus, the reports and the time.
final class UnsupportedBrowsersTests: XCTestCase {
    private let firefox = AppIdentity(
        key: .desktopEntry("firefox-esr.desktop"), displayName: "Firefox ESR", categories: ["Network", "WebBrowser"])
    private let t0 = ContinuousClock.now
    private var longAgo: ContinuousClock.Instant { t0 - .seconds(3600) }

    private func at(_ seconds: Double) -> ContinuousClock.Instant { t0 + .milliseconds(Int64(seconds * 1000)) }

    func testAFocusedBrowserNoReportNamesIsShieldedOnceItsPatienceIsOverAndRecordedOnce() {
        var rule = UnsupportedBrowsers()
        XCTAssertEqual(rule.observe(focused: (40, firefox, longAgo), reported: [], now: at(0)), [.wake(at: at(2))])
        XCTAssertEqual(rule.observe(focused: (40, firefox, longAgo), reported: [], now: at(1.5)), [.wake(at: at(2))])
        XCTAssertEqual(
            rule.observe(focused: (40, firefox, longAgo), reported: [], now: at(2)),
            [.shield(pid: 40, browser: firefox), .record(pid: 40, browser: firefox)])
        XCTAssertEqual(rule.unsupported, [40: firefox])
        XCTAssertEqual(rule.observe(focused: nil, reported: [], now: at(5)), [], "recorded once")
        // The extension reports for it after all: its windows are the browser's again.
        XCTAssertEqual(rule.observe(focused: nil, reported: [40], now: at(6)), [.lift(pid: 40)])
        XCTAssertEqual(rule.unsupported, [:])
    }

    func testABrowserIsCoveredAsCheckedFromItsFirstFocusUntilAReportOrItsShield() {
        var rule = UnsupportedBrowsers()
        XCTAssertEqual(rule.checking, [:])
        _ = rule.observe(focused: (40, firefox, at(-0.5)), reported: [], now: at(0))
        XCTAssertEqual(rule.checking, [40: firefox], "covered from the first look, its allowance or not")
        _ = rule.observe(focused: nil, reported: [], now: at(1))
        XCTAssertEqual(rule.checking, [40: firefox], "the focus on its shield keeps it covered")
        _ = rule.observe(focused: nil, reported: [40], now: at(2))
        XCTAssertEqual(rule.checking, [:], "a report lifts it")
        XCTAssertEqual(rule.unsupported, [:])
        // Another start that never reports: checked, then shielded as not supported.
        _ = rule.observe(focused: (41, firefox, at(3)), reported: [40], now: at(3))
        XCTAssertEqual(rule.checking, [41: firefox])
        _ = rule.observe(focused: nil, reported: [40], now: at(13))
        XCTAssertEqual(rule.checking, [:])
        XCTAssertEqual(rule.unsupported, [41: firefox])
    }

    func testAReportLostAgainAndAgainShieldsAtOnceAndRecordsOnce() {
        var rule = UnsupportedBrowsers()
        // Reported, then lost (its host killed) twice: covered as checked each time, lifted by the report.
        _ = rule.observe(focused: (40, firefox, longAgo), reported: [40], now: at(0))
        for loss in 1..<UnsupportedBrowsers.lossesBeforeShield {
            let lost = at(Double(loss) * 3)
            XCTAssertEqual(
                rule.observe(focused: (40, firefox, longAgo), reported: [], now: lost), [.wake(at: lost + .seconds(2))])
            XCTAssertEqual(rule.checking, [40: firefox])
            XCTAssertEqual(rule.observe(focused: nil, reported: [40], now: lost + .seconds(1)), [])
            XCTAssertEqual(rule.checking, [:])
        }
        // Lost once more within the minute, the browser not even focused: shielded at once, recorded.
        let third = at(9)
        XCTAssertEqual(
            rule.observe(focused: nil, reported: [], now: third),
            [.shield(pid: 40, browser: firefox), .record(pid: 40, browser: firefox)])
        // Its report comes back (the hold failed): lifted; lost again: shielded again at once, not recorded again.
        XCTAssertEqual(rule.observe(focused: nil, reported: [40], now: at(10)), [.lift(pid: 40)])
        XCTAssertEqual(rule.observe(focused: nil, reported: [], now: at(16)), [.shield(pid: 40, browser: firefox)])
        // A minute after the losses, a lost report is waited for again.
        XCTAssertEqual(rule.observe(focused: nil, reported: [40], now: at(30)), [.lift(pid: 40)])
        XCTAssertEqual(
            rule.observe(focused: (40, firefox, longAgo), reported: [], now: at(80)), [.wake(at: at(82))])
    }

    func testAReportWithinThePatienceShieldsNothing() {
        var rule = UnsupportedBrowsers()
        _ = rule.observe(focused: (40, firefox, longAgo), reported: [], now: at(0))
        XCTAssertEqual(rule.observe(focused: (40, firefox, longAgo), reported: [40], now: at(1)), [])
        XCTAssertEqual(rule.observe(focused: (40, firefox, longAgo), reported: [40], now: at(3)), [])
        XCTAssertEqual(rule.unsupported, [:])
    }

    func testLosingTheFocusDoesNotRestartThePatience() {
        var rule = UnsupportedBrowsers()
        _ = rule.observe(focused: (40, firefox, longAgo), reported: [], now: at(0))
        XCTAssertEqual(rule.observe(focused: nil, reported: [], now: at(1)), [.wake(at: at(2))])
        XCTAssertEqual(rule.observe(focused: (40, firefox, longAgo), reported: [], now: at(1.9)), [.wake(at: at(2))])
        XCTAssertEqual(
            rule.observe(focused: nil, reported: [], now: at(2.1)),
            [.shield(pid: 40, browser: firefox), .record(pid: 40, browser: firefox)])
    }

    func testABrowserJustStartedHasTheStartupAllowance() {
        var rule = UnsupportedBrowsers()
        let started = at(-1)
        XCTAssertEqual(rule.observe(focused: (41, firefox, started), reported: [], now: at(0)), [.wake(at: at(9))])
        XCTAssertEqual(rule.observe(focused: (41, firefox, started), reported: [], now: at(8.9)), [.wake(at: at(9))])
        XCTAssertEqual(
            rule.observe(focused: (41, firefox, started), reported: [], now: at(9)),
            [.shield(pid: 41, browser: firefox), .record(pid: 41, browser: firefox)])
        // A browser that cannot run the extension has none.
        XCTAssertEqual(rule.observe(focused: (43, firefox, nil), reported: [], now: at(10)), [.wake(at: at(12))])
    }

    func testEndedProcessesAreForgotten() {
        var rule = UnsupportedBrowsers()
        _ = rule.observe(focused: (40, firefox, longAgo), reported: [], now: at(0))
        _ = rule.observe(focused: (42, firefox, longAgo), reported: [], now: at(0))
        _ = rule.observe(focused: nil, reported: [], now: at(2))
        XCTAssertEqual(Set(rule.unsupported.keys), [40, 42])
        rule.forgetEnded { $0 == 42 }
        XCTAssertEqual(Set(rule.unsupported.keys), [42])
        // A new process with 40's pid starts from nothing.
        XCTAssertEqual(rule.observe(focused: (40, firefox, longAgo), reported: [], now: at(3)), [.wake(at: at(5))])
    }

    func testWhatIsABrowser() {
        XCTAssertTrue(UnsupportedBrowsers.isBrowser(firefox, executable: "/opt/firefox/firefox"))
        let chromium = AppIdentity(key: .windowClass("Chromium"), displayName: "Chromium")
        XCTAssertTrue(
            UnsupportedBrowsers.isBrowser(chromium, executable: "/usr/lib/chromium/chromium"),
            "a browser Screenward installs into, whatever its window claims")
        XCTAssertFalse(
            UnsupportedBrowsers.isBrowser(
                AppIdentity(
                    key: .desktopEntry("org.gnome.gedit.desktop"), displayName: "Text Editor", categories: ["Utility"]),
                executable: "/usr/bin/gedit"))
        let shielded = UnsupportedBrowsers.identity(of: firefox, executable: "/usr/lib/firefox-esr/firefox-esr")
        XCTAssertEqual(shielded.displayName, "Firefox ESR")
        XCTAssertNotEqual(shielded.key, firefox.key, "a supported window of the same browser keeps its own identity")
    }
}
