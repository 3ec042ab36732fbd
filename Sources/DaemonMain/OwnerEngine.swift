import Foundation
import GLibRuntime
import ScreenwardCore

/// Runs one managed user's monitor engine on the daemon's loop: what is due is
/// delivered, then a wall-clock timer sleeps until the next deadline (it fires on time
/// after a suspend, and wakes when the clock is set). No polling.
final class OwnerEngine {
    private let service: ScreenTimeService
    private var timer: WallClockTimer!
    /// Called after each run (the daemon starts the monitors now owed callbacks).
    var afterRun: () -> Void = {}

    init(service: ScreenTimeService, clockChanged: @escaping (WallClockTimer.Wake) -> Void) throws {
        self.service = service
        timer = try WallClockTimer { [unowned self] wake in
            clockChanged(wake)
            run()
        }
    }

    /// Delivers what is due now and re-arms for the next deadline: after every request,
    /// presence change and timer.
    func run() {
        service.runDue().forEach { $0.send() }
        timer.arm(at: service.nextDeadline())
        afterRun()
    }
}
