import Foundation
import ScreenwardIPC

/// The test process's own standard input, output and error, checked each time the harness
/// starts a program: one that something closed would be handed on closed (and Foundation's
/// `Process` crosses a child's pipes when one of the parent's ends takes number 0, 1 or 2).
/// It is opened on /dev/null again, and the harness says so with the program it was about to
/// start, so that whatever closed it can be found.
enum HarnessStreams {
    static func check(beforeStarting program: String) {
        let reopened = StandardStreams.reopenClosed()
        guard !reopened.isEmpty else { return }
        let line =
            """
            screenward harness: the test process's descriptor(s) \(reopened) were closed before it started \
            \(program); they are /dev/null now\n
            """
        // Said where it can still be read: standard error unless that was one of them.
        let channel = reopened.contains(2) ? FileHandle.standardOutput : FileHandle.standardError
        channel.write(Data(line.utf8))
    }
}
