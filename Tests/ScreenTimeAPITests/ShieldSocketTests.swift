@_spi(Screenward) import FamilyControls
import Foundation
import GLibRuntime
@_spi(Screenward) import ManagedSettings
@_spi(Screenward) import ManagedSettingsUI
import ScreenwardCore
import ScreenwardIPC
import XCTest

/// Both shield extensions of an app over the agent's real socket, whose lines reach the
/// owner on its loop (the test's thread): pushes arrive on the transport's queue, answers
/// go back from there or from any thread.
final class ShieldSocketTests: XCTestCase {
    func testShieldExtensionsOverTheSocket() async throws {
        let world = try InProcessWorld(test: self)
        world.use("org.example.focus")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let picked = try world.pick(applications: ["chess.desktop"])
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sw-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("agent.sock").path
        let server = try SocketServer(path: path, handler: RequestsOnLoop(onLoop: world.host))
        defer { server.close() }
        let answers = world.recordShieldAnswers()

        let transport = SocketTransport(path: path)
        let client = ServiceClient(transport: transport, bundleIdentifier: "org.example.focus")
        let asked = Recorder<ShieldRequestSubject>()
        let held = HeldCompletions()
        let heard = Recorder<HeardAction>()
        // The attachments wait for the owner's replies, which come when this thread runs the loop.
        let attached = Recorder<String>()
        Thread.detachNewThread {
            do {
                try ShieldConfigurationAttachment.attach(RecordingDataSource(log: asked), client: client)
                try ShieldActionAttachment.attach(
                    RecordingActionDelegate(log: heard, held: held) { _ in nil }, client: client)
                attached.append("attached")
            } catch {
                attached.append("\(error)")
            }
        }
        waitUntil("the extensions to attach") { !attached.all.isEmpty }
        XCTAssertEqual(attached.all, ["attached"])

        let configuration = try XCTUnwrap(
            world.host.requestShieldConfiguration(owner: "org.example.focus", item: world.chess()))
        waitUntil("the configuration") { answers.all.count == 1 }
        XCTAssertEqual(answers.all, [.configuration(configuration, RecordingDataSource.title("app Chess"))])
        XCTAssertEqual(
            asked.all,
            [
                .application(
                    Application(
                        token: picked.applicationTokens.first, bundleIdentifier: "chess.desktop",
                        localizedDisplayName: "Chess"))
            ])

        let action = try XCTUnwrap(
            world.host.requestShieldAction(
                owner: "org.example.focus", action: .primaryButtonPressed, item: world.chess()))
        waitUntil("the delegate to be asked") { held.count == 1 }
        XCTAssertEqual(
            heard.all,
            [
                HeardAction(
                    method: "application", token: picked.applicationTokens.first!.opaqueValue,
                    action: .primaryButtonPressed)
            ])
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { held.answer(.close) }
        waitUntil("the response") { answers.all.count == 2 }
        // A tenth of a second more of the loop: no other answer comes.
        let quiet = Date().addingTimeInterval(0.1)
        while Date() < quiet {
            MainLoop.runPending()
            try await Task.sleep(for: .milliseconds(5))
        }
        XCTAssertEqual(answers.all.last, .action(action, .close))
        XCTAssertEqual(answers.all.count, 2)

        // The process ends: the agent stops asking it.
        transport.close()
        waitUntil("the agent to notice") {
            world.host.requestShieldConfiguration(owner: "org.example.focus", item: world.chess()) == nil
        }
        XCTAssertNil(
            world.host.requestShieldAction(
                owner: "org.example.focus", action: .primaryButtonPressed, item: world.chess()))
    }
}
