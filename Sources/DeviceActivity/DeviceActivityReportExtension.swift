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

    /// The view for `context`, or nil when this scene draws another context. Screenward calls
    /// it; a scene has no need to implement it.
    func view(for context: DeviceActivityReport.Context, data: [DeviceActivityData]) async -> ReportView?
    /// The contexts drawn: a scene's one, or each of a group's.
    var contexts: [DeviceActivityReport.Context] { get }
}

extension DeviceActivityReportScene {
    public func view(for context: DeviceActivityReport.Context, data: [DeviceActivityData]) async -> ReportView? {
        guard context == self.context else { return nil }
        return content(await makeConfiguration(representing: DeviceActivityResults(data))).body
    }

    public var contexts: [DeviceActivityReport.Context] { [context] }
}

/// Builds an extension's `body` from one scene or several, as Apple's
/// `DeviceActivityReportSceneBuilder` does: each report context is drawn by its scene.
@resultBuilder
public enum DeviceActivityReportSceneBuilder {
    public static func buildBlock<Scene: DeviceActivityReportScene>(_ scene: Scene) -> Scene { scene }

    public static func buildBlock<each Scene: DeviceActivityReportScene>(_ scenes: repeat each Scene)
        -> DeviceActivityReportScenes<repeat each Scene>
    {
        DeviceActivityReportScenes(repeat each scenes)
    }
}

/// Several scenes in one extension: a report is drawn by the first whose context it names.
public struct DeviceActivityReportScenes<each Scene: DeviceActivityReportScene>: DeviceActivityReportScene {
    let scenes: (repeat each Scene)

    init(_ scenes: repeat each Scene) { self.scenes = (repeat each scenes) }

    public var contexts: [DeviceActivityReport.Context] {
        var all: [DeviceActivityReport.Context] = []
        for scene in repeat each scenes { all += scene.contexts }
        return all
    }

    /// The first scene's (a group draws every one of `contexts`).
    public var context: DeviceActivityReport.Context { contexts.first ?? DeviceActivityReport.Context("") }
    public var content: (Void) -> ReportView { { _ in .text("") } }
    public func makeConfiguration(representing data: DeviceActivityResults<DeviceActivityData>) async {}

    public func view(for context: DeviceActivityReport.Context, data: [DeviceActivityData]) async -> ReportView? {
        for scene in repeat each scenes {
            if let view = await scene.view(for: context, data: data) { return view }
        }
        return nil
    }
}

/// A report extension: the program Screenward starts (with no network) when an app's
/// report must be drawn. Its `main()` reads the request on standard input and writes
/// what it drew on standard output; what the extension's own code prints goes to
/// standard error (the owner's log).
public protocol DeviceActivityReportExtension {
    associatedtype Body: DeviceActivityReportScene
    @DeviceActivityReportSceneBuilder var body: Body { get }
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
                    this extension has no scene for the context \"\(request.context.rawValue)\" (it draws \
                    \(extensionValue.body.contexts.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")))
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
