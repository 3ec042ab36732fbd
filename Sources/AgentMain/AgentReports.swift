@_spi(Screenward) import DeviceActivity
import Foundation
import Glibc
@_spi(Screenward) import ScreenwardCore
import ScreenwardIPC
import SystemAccounts

/// `report.run` in individual mode: the person's own data, drawn by an app's report
/// extension in a network namespace of its own. Each runs on a thread of its own (an
/// extension has 10 s), so the socket's other requests are not held up.
final class AgentReports: Sendable {
    private let ledger: Ledger
    private let directory: ItemDirectory
    private let sessionID: Int64
    private let socketPath: String
    /// The display's variables (`DISPLAY` or `WAYLAND_DISPLAY`), for the report window.
    private let displayEnvironment: [String: String]
    private let log: AgentLog

    init(
        ledger: Ledger, directory: ItemDirectory, sessionID: Int64, socketPath: String,
        displayEnvironment: [String: String], log: AgentLog
    ) {
        self.ledger = ledger
        self.directory = directory
        self.sessionID = sessionID
        self.socketPath = socketPath
        self.displayEnvironment = displayEnvironment
        self.log = log
    }

    /// `report.present`: the app's report in a window the agent shows (`screenward-report`,
    /// its own child, which asks this agent for the drawing), waited for on a thread of its
    /// own; the app hears only that it was closed.
    func present(_ request: RequestFrame<ReportPresentation>, from peer: ServicePeer, _ pending: PendingReply<Empty>)
        throws
    {
        try BundleIdentifier.validate(request.client)
        guard let program = DeviceActivityReport.rendererPath() else {
            // swift-format-ignore
            throw ServiceError(.unsupported, Phrase("Screenward's report window (screenward-report) is not installed beside the agent nor on PATH", context: "service"))
        }
        let environment = ProcessInfo.processInfo.environment.merging(displayEnvironment) { $1 }
        let run = ReportWindowRun(
            program: program, app: request.client, presentation: request.body, environment: environment)
        let (log, app) = (log, request.client)
        log.info("reports: \(app)'s report \"\(request.body.context.rawValue)\" is shown")
        Thread.detachNewThread {
            let result = Result { try run.run() }.map { Empty() }.mapError { error in
                log.warning("reports: \(app)'s report window: \(error)")
                return ServiceError(.internalFailure, "\(error)")
            }
            peer.send(pending.line(result))
        }
    }

    func answer(_ request: ReportRunRequest, from peer: ServicePeer, _ pending: PendingReply<ReportRendering>) {
        Thread.detachNewThread { [self] in
            let result: Result<ReportRendering, ServiceError>
            do {
                let started = ContinuousClock.now
                let rendering = try makeRun(for: request).run(request, now: Date())
                log.info(
                    "reports: \(request.app)'s report extension drew \"\(request.context.rawValue)\" in "
                        + "\(started.duration(to: .now)) (no network)"
                )
                result = .success(rendering)
            } catch let error as ServiceError {
                result = .failure(error)
            } catch let error as any PhrasedError {
                result = .failure(ServiceError(.internalFailure, error.phrase))
            } catch {
                result = .failure(ServiceError(.internalFailure, "\(error)"))
            }
            if case .failure(let error) = result { log.warning("reports: \(error.message)") }
            peer.send(pending.line(result))
        }
    }

    private func makeRun(for request: ReportRunRequest) throws -> AppReportRun {
        let me = (try? UnixAccount.withID(UserID(rawValue: getuid())))??.name ?? "uid \(getuid())"
        if let user = request.user, user != me {
            throw ServiceError(
                .unauthorized,
                Phrase(
                    "this agent keeps {owner}'s own usage; a managed user's report comes from the system daemon",
                    context: "service", ["owner": me]))
        }
        let env = ProcessInfo.processInfo.environment
        let data = AppReportData(
            ledger: ledger, directory: directory, calendar: Calendar.current, liveSessionID: sessionID,
            user: DeviceActivityData.User(name: me, role: .individual),
            language: ShieldDefaults.language(fromEnvironment: env))
        let (installed, _) = InstalledApps.all(in: InstalledApps.forPerson(uid: getuid()))
        var environment = [
            "PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": env["HOME"] ?? NSHomeDirectory(),
            "LANG": env["LANG"] ?? "C.UTF-8",
            "SCREENWARD_BUNDLE_ID": request.app,
        ]
        for name in ["XDG_DATA_HOME", "XDG_CONFIG_HOME", "SCREENWARD_HOME"] {
            if let value = env[name] { environment[name] = value }
        }
        let log = log
        return AppReportRun(
            data: data, installed: installed,
            launcher: ReportExtensionRun(environment: environment, identity: nil) { line in log.info("reports: \(line)")
            })
    }
}
