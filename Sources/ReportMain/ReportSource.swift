import ArgumentParser
@_spi(Screenward) import DeviceActivity
import Foundation
import ScreenwardCore
import ScreenwardIPC

/// Where a report's data comes from: the person's own ledger (individual mode, read
/// directly as `screenward usage` does), or the system daemon for a managed account
/// and for a guardian naming one.
struct ReportSource {
    var user: String?
    let environment = ProcessInfo.processInfo.environment

    private var daemonOwnsIt: Bool {
        user != nil || DaemonAddress.socketManagingThisAccount(environment: environment) != nil
    }

    func builtInReport(_ query: ReportQuery) throws -> ActivityReport {
        if daemonOwnsIt {
            return try call(
                DaemonAddress.socketPath(environment: environment), ChildMethods.report, query, owner: .daemon)
        }
        let now = Date()
        let calendar = Calendar.current
        let categories = try DataDirectory.categoryTable()
        let home = ScreenwardHome.fromEnvironment()
        do {
            guard FileManager.default.fileExists(atPath: home.ledgerURL.path) else {
                let range = try query.range(now: now, calendar: calendar)
                return try ActivityReportBuilder(segmentation: query.segmentation, range: range, calendar: calendar)
                    .build(uses: [], applications: [:], lastUpdated: now)
            }
            let ledger = try Ledger(url: home.ledgerURL)
            let live = AgentLock.isHeld(in: home) ? try ledger.unfinishedAgentSession() : nil
            return try ledger.activityReport(
                query, calendar: calendar, categories: categories, liveSessionID: live?.id, now: now)
        } catch let error as ReportQueryError {
            throw ValidationError(texts(error.phrase))
        } catch let error as TimeArgument.ParseError {
            throw ValidationError(texts(error.phrase))
        }
    }

    func extensionReport(app: String, context: String, filterJSON: String?) throws -> ReportRendering {
        let filter: DeviceActivityFilter
        if let filterJSON {
            do {
                filter = try JSONDecoder().decode(DeviceActivityFilter.self, from: Data(filterJSON.utf8))
            } catch {
                throw ValidationError(
                    texts("--filter-json is not a DeviceActivityFilter: {error}", context: "cli", ["error": "\(error)"])
                )
            }
        } else {
            filter = DeviceActivityReport(.init(context)).filter
        }
        // The window a managed session's agent shows for an app, with the daemon's ticket for it.
        if let ticket = environment["SCREENWARD_REPORT_TICKET"], !ticket.isEmpty {
            let request = ReportRunRequest(app: app, context: .init(context), filter: filter, ticket: ticket)
            return try call(
                DaemonAddress.socketPath(environment: environment), ReportMethods.run, request, owner: .daemon)
        }
        let request = ReportRunRequest(app: app, context: .init(context), filter: filter, user: user)
        if daemonOwnsIt {
            return try call(
                DaemonAddress.socketPath(environment: environment), ReportMethods.run, request, owner: .daemon)
        }
        return try call(ScreenwardHome.fromEnvironment().socketPath(), ReportMethods.run, request, owner: .agent)
    }

    enum Owner { case agent, daemon }

    private func call<Request, Reply>(
        _ path: String, _ method: ServiceMethod<Request, Reply>, _ request: Request, owner: Owner
    ) throws -> Reply {
        let transport = SocketTransport(path: path)
        defer { transport.close() }
        let client = ServiceClient(transport: transport, bundleIdentifier: "org.screenward.cli")
        do {
            // An extension has 10 s to draw; the answer comes after it.
            return try client.call(method, request, timeout: .seconds(15))
        } catch let error as ServiceError where error.code == .agentUnavailable {
            // swift-format-ignore
            throw ServiceError(
                .agentUnavailable,
                owner == .agent
                    ? Phrase("the Screenward agent is not running: start `screenward-agent` in the desktop session (it normally starts at login)", context: "connection")
                    : Phrase("the Screenward system daemon is not running (no answer on {path})", context: "connection", ["path": path]))
        }
    }
}
