import Foundation
import Glibc

/// One kind of report an extension draws: its context, how it turns the data into a
/// configuration (`makeConfiguration`), and the content drawn from that configuration.
/// As in the WWDC22 talk's `PieChartReport`, with a `ReportView` for SwiftUI's view.
public protocol DeviceActivityReportScene {
    associatedtype Configuration
    associatedtype Content: ReportContent

    var context: DeviceActivityReport.Context { get }
    var content: (Configuration) -> Content { get }
    func makeConfiguration(representing data: DeviceActivityResults<DeviceActivityData>) async -> Configuration
}

extension DeviceActivityReportScene {
    /// The view for `context`, or nil when this scene draws another context.
    func view(for context: DeviceActivityReport.Context, data: [DeviceActivityData]) async -> ReportView? {
        guard context == self.context else { return nil }
        return content(await makeConfiguration(representing: DeviceActivityResults(data))).body
    }
}

/// A report extension: the program Screenward starts (with no network) when an app's
/// report must be drawn. Its `main()` reads the request on standard input and writes
/// what it drew on standard output; what the extension's own code prints goes to
/// standard error (the owner's log).
public protocol DeviceActivityReportExtension {
    associatedtype Body: DeviceActivityReportScene
    var body: Body { get }
    init()
}

extension DeviceActivityReportExtension {
    public static func main() async {
        // The reply has standard output to itself: the extension's prints go to stderr.
        let replyDescriptor = dup(STDOUT_FILENO)
        _ = dup2(STDERR_FILENO, STDOUT_FILENO)
        let reply: ReportExtensionReply
        do {
            let input = FileHandle.standardInput.readDataToEndOfFile()
            let request = try JSONDecoder().decode(ReportExtensionRequest.self, from: input)
            guard request.format == ReportExtensionRequest.currentFormat else {
                throw ReportExtensionError(
                    """
                    a request of format \(request.format); this extension reads format \
                    \(ReportExtensionRequest.currentFormat)
                    """
                )
            }
            let extensionValue = Self()
            guard let view = await extensionValue.body.view(for: request.context, data: request.data) else {
                throw ReportExtensionError(
                    """
                    this extension has no scene for the context \"\(request.context.rawValue)\" (its scene's is \
                    \"\(extensionValue.body.context.rawValue)\")
                    """
                )
            }
            reply = ReportExtensionReply(view: view, error: nil)
        } catch {
            reply = ReportExtensionReply(view: nil, error: "\(error)")
        }
        let output = FileHandle(fileDescriptor: replyDescriptor, closeOnDealloc: true)
        output.write((try? JSONEncoder().encode(reply)) ?? Data(#"{"error":"the report could not be encoded"}"#.utf8))
        output.write(Data("\n".utf8))
        exit(reply.error == nil ? 0 : 1)
    }
}

struct ReportExtensionError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
