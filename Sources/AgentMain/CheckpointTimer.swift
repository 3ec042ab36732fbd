import GLibRuntime
import X11Session

/// The one-second checkpoint, kept running exactly while time is counted, so that a
/// crash loses at most a second. Each fires a second after the last one (or after
/// counting began). Not GLib's seconds timer: it snaps to a whole-second grid and can
/// first fire 1.75 s after it is added, and a kill before that lost more than a second.
final class CheckpointTimer {
    private let loop: MainLoop
    private let checkpoint: () -> Void
    private var timer: MainLoop.Registration?

    init(loop: MainLoop, checkpoint: @escaping () -> Void) {
        self.loop = loop
        self.checkpoint = checkpoint
    }

    /// Starts or stops it as counting starts or stops.
    func keep(running: Bool) {
        if running, timer == nil {
            schedule()
        } else if !running {
            cancel()
        }
    }

    func cancel() {
        timer?.cancel()
        timer = nil
    }

    private func schedule() {
        timer = loop.schedule(after: .seconds(1)) { [unowned self] in
            checkpoint()
            schedule()
        }
    }
}
