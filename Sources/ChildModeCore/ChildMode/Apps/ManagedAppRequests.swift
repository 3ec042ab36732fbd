import AppExtensions
@_spi(Screenward) import DeviceActivity
@_spi(Screenward) import FamilyControls
import Foundation
import ScreenTimeOwner
@_spi(Screenward) import ScreenTimePolicy
import ScreenwardBasics
import ScreenwardIPC

/// The Screen Time API as a managed user's apps reach it: through the system daemon,
/// on its loop. Every request must come from an installed app, untampered, on a
/// connection it opened with its proof (`ProcessVetting`); then it goes to the user's
/// own `ScreenTimeService`, the same state owner a person's agent runs. Asking for
/// `.child`, and giving it up, needs a guardian's one-time code (`GuardianApprovals`), and
/// so does whatever the app changes that restricts less (`ScreenTimeService.loosening`):
/// a guardian approves it ahead (`requestGuardianApproval`, and the approval of `.child`
/// itself), for that process, for `AuthorizationCenter.guardianApprovalDuration`.
/// Refusals are recorded for the guardians, once per connection and app (or change).
public final class ManagedAppRequests {
    public struct Services {
        public var owner: (UInt32) -> ManagedUserOwner?
        public var apps: InstalledApps
        public var vetting: ProcessVetting
        public var record: (ChildEvent, _ uid: UInt32) -> Void
        public var now: () -> Date
        /// The installed `screenward-web-host` and the browsers it is taken from (nil: the
        /// daemon takes no browser's reports, and says why to a host that connects).
        public var webHost: WebHostTrust?
        /// Shows the activity picker in one of the user's desktop sessions: the agent told (nil: none).
        @_spi(Screenward) public var showPicker: (PickerShow, _ uid: UInt32) -> ServicePeer? = { _, _ in nil }
        /// Shows an app's report in one of the user's desktop sessions: the agent told (nil: none).
        @_spi(Screenward) public var showReport: (ReportShow, _ uid: UInt32) -> ServicePeer? = { _, _ in nil }
        /// Draws an app's label in one of the user's desktop sessions: the agent told (nil: none).
        @_spi(Screenward) public var showLabel: (LabelShow, _ uid: UInt32) -> ServicePeer? = { _, _ in nil }

        public init(
            owner: @escaping (UInt32) -> ManagedUserOwner?, apps: InstalledApps, vetting: ProcessVetting,
            record: @escaping (ChildEvent, UInt32) -> Void, now: @escaping () -> Date = { Date() },
            webHost: WebHostTrust? = nil
        ) {
            self.owner = owner
            self.apps = apps
            self.vetting = vetting
            self.record = record
            self.now = now
            self.webHost = webHost
        }
    }

    /// Which `screenward-web-host` a managed user's browsers start, and which browsers.
    public struct WebHostTrust: Sendable {
        /// The host as a built-in app: its one executable (canonical path).
        public var app: InstalledApp
        public var browsers: Set<String>

        public init(executable: String, browsers: Set<String> = BrowserInstallation.browserExecutables) {
            let canonical = URL(fileURLWithPath: executable).resolvingSymlinksInPath().path
            app = InstalledApp(
                bundleIdentifier: BrowserInstallation.hostBundleIdentifier, displayName: "Screenward's browser host",
                executables: [canonical])
            self.browsers = Set(browsers.map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().path })
        }
    }

    let services: Services
    public let approvals: GuardianApprovals
    private var proofs: [ServicePeer: AppProof] = [:]
    private var vetted: [ServicePeer: Set<String>] = [:]
    private var recordedRefusals: [ServicePeer: Set<String>] = [:]
    /// Until when each connection may loosen (a guardian approved it).
    private var mayLoosenUntil: [ServicePeer: Date] = [:]
    /// The browser each vetted host connection was started by.
    private var browsers: [ServicePeer: Int32] = [:]
    /// Sends lines that are ready later (a guardian's decision).
    let send: (Delivery) -> Void
    /// The pickers shown for apps, by the id their session's agent answers with.
    var pickers: [UInt64: OpenPicker] = [:]
    var lastPickerID: UInt64 = 0
    /// The apps' reports shown in their sessions, by the id their agent answers with.
    var reports: [UInt64: OpenReport] = [:]
    var lastReportID: UInt64 = 0
    /// The apps' labels being drawn in their sessions, by the id their agent answers with.
    var labels: [UInt64: OpenLabel] = [:]
    var lastLabelID: UInt64 = 0

    public init(services: Services, approvals: GuardianApprovals, send: @escaping (Delivery) -> Void) {
        self.services = services
        self.approvals = approvals
        self.send = send
    }

    /// The first line of an app's connection.
    public func proofReceived(_ frame: Data, from peer: ServicePeer) {
        guard proofs[peer] == nil, let proof = try? AppProof.push.body(from: frame) else { return }
        proofs[peer] = proof
    }

    /// The managed user a guardian's app on `peer` says it acts for (the daemon checks the
    /// caller is a guardian before it serves it so).
    public func actingFor(_ peer: ServicePeer) -> String? {
        proofs[peer]?.actingFor
    }

    public func disconnected(_ peer: ServicePeer) {
        let served = servedUser.removeValue(forKey: peer)
        proofs[peer] = nil
        vetted[peer] = nil
        recordedRefusals[peer] = nil
        mayLoosenUntil[peer] = nil
        browsers[peer] = nil
        pickers = pickers.filter { $0.value.peer != peer }
        labels = labels.filter { $0.value.peer != peer }
        approvals.requesterGone(peer)
        if let uid = served ?? peer.credentials?.uid { services.owner(uid)?.service.disconnected(peer) }
    }

    /// The managed user whose owner served each connection (a guardian's app acts for another).
    private var servedUser: [ServicePeer: UInt32] = [:]

    /// One request of managed user `user`'s app: the lines to send now (none while a
    /// guardian is being asked: the reply follows their answer). `guardian`: the app is a
    /// guardian's own, run by them for `user` (`screenward app run --user`): what they
    /// change needs no other approval.
    public func handle(frame: Data, from peer: ServicePeer, user: Account, guardian: String? = nil) -> [Delivery] {
        servedUser[peer] = user.uid
        guard let head = try? FrameHead.decode(from: frame), let id = head.id, let method = head.method else {
            return []
        }
        func reply(_ error: ServiceError) -> [Delivery] { [Delivery(peer: peer, line: errorLine(id: id, error))] }
        guard let owner = services.owner(user.uid) else {
            return reply(
                ServiceError(
                    .internalFailure,
                    Phrase(
                        "the daemon could not open {user}'s state; a guardian finds why in its log", context: "daemon",
                        ["user": user.name])))
        }
        guard let client = head.client else {
            return reply(ServiceError(.malformedMessage, Phrase("the request names no app", context: "daemon")))
        }
        let app: InstalledApp
        do {
            app = try vet(client, peer: peer, user: user)
        } catch {
            return reply(Self.serviceError(error))
        }
        let fromBrowser = [WebHostMethods.windows.name, WebHostMethods.shieldEvent.name].contains(method)
        if fromBrowser != (client == BrowserInstallation.hostBundleIdentifier) {
            // swift-format-ignore
            let why =
                fromBrowser
                ? Phrase("only Screenward's browser host, started by a browser, speaks for a browser", context: "daemon")
                : Phrase("Screenward's browser host only speaks for a browser", context: "daemon")
            return reply(ServiceError(.unauthorized, why))
        }
        if Self.idMethods.contains(method), guardian == nil {
            return reply(refuseIDs(app: app, peer: peer, user: user))
        }
        guard Self.routes.answers(method) else {
            if guardian == nil, !mayLoosen(peer), let loosening = owner.service.loosening(of: frame) {
                return reply(refuseLoosening(loosening, app: app, peer: peer, user: user))
            }
            return owner.service.handle(frame: frame, from: peer)
        }
        var request = ManagedAppRequest(peer: peer, user: user, owner: owner, app: app, guardian: guardian)
        guard let routed = Self.routes.reply(to: frame, by: self, &request) else { return [] }
        return (routed.line.map { [Delivery(peer: peer, line: $0)] } ?? []) + request.deliveries
    }

    /// One request of a managed user's vetted app.
    struct ManagedAppRequest {
        let peer: ServicePeer
        let user: Account
        let owner: ManagedUserOwner
        let app: InstalledApp
        /// The guardian running the app for `user`, from their own account.
        let guardian: String?
        /// Lines to send now besides the reply.
        var deliveries: [Delivery] = []
    }

    /// The requests answered here rather than by the owner: authorization is a guardian's
    /// to approve, and a browser's report is the vetted browser's whatever it says.
    static let routes = ServiceRoutes<ManagedAppRequests, ManagedAppRequest>(
        [
            .on(AuthorizationMethods.request, errors: serviceError) { apps, request, frame, pending in
                guard frame.body == .child else {
                    // swift-format-ignore
                    throw ServiceError(.invalidAccountType, Phrase("this account is managed by a guardian: an app asks for .child here, and a guardian approves it with a one-time code from their authenticator app", context: "daemon"))
                }
                request.deliveries += try apps.requestChild(request, pending)
            },
            .on(AuthorizationMethods.revoke, errors: serviceError) { apps, request, _, pending in
                let client = request.app.bundleIdentifier
                guard try request.owner.ledger.grant(for: client) != nil else {
                    return request.deliveries.append(
                        Delivery(peer: request.peer, line: pending.line(.success(Empty()))))
                }
                let owner = request.owner
                if let guardian = request.guardian {
                    let pushes = try owner.service.revokeAuthorization(of: client)
                    apps.recordByGuardian(.revoke, request, guardian)
                    let done = pending.line(.success(Empty()))
                    return request.deliveries += [Delivery(peer: request.peer, line: done)] + pushes
                }
                let send = apps.send
                try apps.ask(.revoke, request, pending) {
                    try owner.service.revokeAuthorization(of: client).forEach(send)
                    return Empty()
                }
            },
            .on(AuthorizationMethods.guardianApproval, errors: serviceError) { apps, request, frame, pending in
                guard try request.owner.ledger.grant(for: request.app.bundleIdentifier) != nil else {
                    // swift-format-ignore
                    throw ServiceError(.unauthorized, Phrase("{app} is not authorised: it asks for .child first, which a guardian approves", context: "daemon", ["app": request.app.displayName]))
                }
                if request.guardian != nil {
                    return request.deliveries.append(
                        Delivery(peer: request.peer, line: pending.line(.success(GuardianApprovalGrant(until: nil)))))
                }
                if let until = apps.mayLoosenUntil[request.peer], until > apps.services.now() {
                    return request.deliveries.append(
                        Delivery(peer: request.peer, line: pending.line(.success(GuardianApprovalGrant(until: until)))))
                }
                let peer = request.peer
                try apps.ask(.loosen, request, pending, reason: ManagedAppRequests.readable(frame.body.reason)) {
                    [weak apps] in
                    GuardianApprovalGrant(until: apps?.allowLoosening(peer))
                }
            },
            .on(AuthorizationMethods.presentPicker, errors: serviceError) { apps, request, frame, pending in
                request.deliveries += try apps.presentPicker(frame.body, request, pending)
            },
            .on(ReportMethods.present, errors: serviceError) { apps, request, frame, pending in
                try apps.presentReport(frame.body, request, pending)
            },
            .on(LabelMethods.show, errors: serviceError) { apps, request, frame, pending in
                try apps.showLabel(frame.body, request, pending)
            },
            // Which apps hold access is the guardians' to read (`screenward app list`), not an app's.
            .on(AccessMethods.list, errors: serviceError) { _, _, _ -> [AppAccess] in
                // swift-format-ignore
                throw ServiceError(.unauthorized, Phrase("an app does not learn which apps hold Screen Time access", context: "daemon"))
            },
            .on(WebHostMethods.windows, errors: serviceError) { apps, request, frame in
                // The browser's process is the one vetted, whatever the report says.
                guard let browser = apps.browsers[request.peer] else {
                    throw ServiceError(
                        .unauthorized, Phrase("only a browser's own host reports its windows", context: "daemon"))
                }
                var report = frame.body
                report.browserPID = browser
                try request.owner.service.takeBrowserWindows(report, from: request.peer)
                return Empty()
            },
        ],
        unknown: { method in
            ServiceError(
                .unknownMethod, Phrase("no managed app's request {method}", context: "daemon", ["method": method]))
        })

    // MARK: Authorization

    private func requestChild(_ request: ManagedAppRequest, _ pending: PendingReply<AuthorizationStatus>) throws
        -> [Delivery]
    {
        let (app, owner, user) = (request.app, request.owner, request.user)
        if let holder = try owner.service.childAuthorizationHolder() {
            if holder == app.bundleIdentifier {
                return [Delivery(peer: request.peer, line: pending.line(.success(.approved)))]
            }
            // swift-format-ignore
            throw ServiceError(.authorizationConflict, Phrase("{app} already manages {user}'s screen time; a guardian revokes it before another app can", context: "daemon", ["app": holder, "user": user.name]))
        }
        if let guardian = request.guardian {
            let pushes = try owner.service.grantChild(app.bundleIdentifier)
            recordByGuardian(.authorize, request, guardian)
            return [Delivery(peer: request.peer, line: pending.line(.success(.approved)))] + pushes
        }
        try ask(.authorize, request, pending) {
            // Checked again: another app may have been approved while this one waited.
            if let holder = try owner.service.childAuthorizationHolder(), holder != app.bundleIdentifier {
                throw ServiceError(
                    .authorizationConflict,
                    Phrase(
                        "{app} was approved first for {user}", context: "daemon", ["app": holder, "user": user.name]))
            }
            try owner.service.grantChild(app.bundleIdentifier).forEach(self.send)
            // The guardian who approved is there: the app's setup that follows needs no second code.
            self.allowLoosening(request.peer)
            return .approved
        }
        return []
    }

    /// What a guardian did with the app from their own account, for the guardians' record.
    private func recordByGuardian(_ purpose: GuardianAsk.Purpose, _ request: ManagedAppRequest, _ guardian: String) {
        let values: [String: any PhraseFilling] = [
            "guardian": guardian, "app": request.app.displayName, "id": request.app.bundleIdentifier,
            "child": request.user.name,
        ]
        let what: Phrase
        if purpose == .revoke {
            // swift-format-ignore
            what = Phrase("{guardian} stopped {app} ({id}) managing {child}'s screen time, from their own account", context: "event", values)
        } else {
            // swift-format-ignore
            what = Phrase("{guardian} set {app} ({id}) to manage {child}'s screen time, from their own account", context: "event", values)
        }
        let event = ChildEvent(at: services.now(), kind: .approved, actor: guardian, phrase: what)
        services.record(event, request.user.uid)
    }

    // MARK: Loosening

    private func mayLoosen(_ peer: ServicePeer) -> Bool {
        mayLoosenUntil[peer].map { $0 > services.now() } ?? false
    }

    @discardableResult
    private func allowLoosening(_ peer: ServicePeer) -> Date {
        let until = services.now().addingTimeInterval(AuthorizationCenter.guardianApprovalDuration)
        mayLoosenUntil[peer] = until
        return until
    }

    /// The refusal of a change that restricts less with no guardian's approval, recorded
    /// once per connection and change.
    private func refuseLoosening(_ what: Phrase, app: InstalledApp, peer: ServicePeer, user: Account) -> ServiceError {
        let values: [String: any PhraseFilling] = ["app": app.displayName, "id": app.bundleIdentifier, "what": what]
        if recordedRefusals[peer, default: []].insert("loosen \(what.description)").inserted {
            // swift-format-ignore
            let event = Phrase("{app} ({id}) tried to {what} without a guardian's approval: refused", context: "event", values)
            services.record(ChildEvent(at: services.now(), kind: .refused, actor: user.name, phrase: event), user.uid)
        }
        // swift-format-ignore
        return ServiceError(.guardianApprovalRequired, Phrase("{app} may not {what} on its own in an account a guardian manages: it asks a guardian first (AuthorizationCenter.requestGuardianApproval). The attempt was recorded.", context: "daemon", values))
    }

    /// Turning ids into the app's tokens, and tokens back into ids.
    static let idMethods: Set<String> = [
        AuthorizationMethods.issueSelection.name, AuthorizationMethods.describeSelection.name,
    ]

    /// The refusal of an app that asks for tokens by id, or for the ids of its tokens: it
    /// would learn what the child picked, or build a table of tokens. Recorded once per
    /// connection. (A guardian's own copy of the app may: they set it up.)
    private func refuseIDs(app: InstalledApp, peer: ServicePeer, user: Account) -> ServiceError {
        let values: [String: any PhraseFilling] = ["app": app.displayName, "id": app.bundleIdentifier]
        if recordedRefusals[peer, default: []].insert("ids").inserted {
            // swift-format-ignore
            let event = Phrase("{app} ({id}) tried to turn ids into tokens, or tokens into ids: refused", context: "event", values)
            services.record(ChildEvent(at: services.now(), kind: .refused, actor: user.name, phrase: event), user.uid)
        }
        // swift-format-ignore
        return ServiceError(.unauthorized, Phrase("{app} gets its tokens from the activity picker (FamilyActivityPicker) and never learns what they stand for; a guardian names apps for it from their own account (`screenward app run --user CHILD -- …`). The attempt was recorded.", context: "daemon", values))
    }

    /// An app's reason as the dialog shows it: one line, no control characters, bounded.
    static func readable(_ reason: String) -> String {
        let line = String(
            String.UnicodeScalarView(
                reason.unicodeScalars.map { CharacterSet.controlCharacters.contains($0) ? " " : $0 }))
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard trimmed.count > GuardianApprovalRequest.maximumReasonLength else { return trimmed }
        return String(trimmed.prefix(GuardianApprovalRequest.maximumReasonLength - 1)) + "…"
    }

    /// Asks a guardian; on approval runs `approved` and replies with its result.
    private func ask<Reply>(
        _ purpose: GuardianAsk.Purpose, _ request: ManagedAppRequest, _ pending: PendingReply<Reply>,
        reason: String? = nil, approved: @escaping () throws -> Reply
    ) throws {
        let (send, peer) = (send, request.peer)
        try approvals.begin(
            purpose, app: request.app, child: request.user.name, uid: request.user.uid, requester: peer,
            reason: reason
        ) { outcome in
            let result: Result<Reply, ServiceError>
            switch outcome {
            case .approved: result = Result(catching: approved).mapError(Self.serviceError)
            case .notApproved(let why):
                let refusal = Phrase("a guardian did not approve: {why}", context: "daemon", ["why": why])
                result = .failure(ServiceError(.authorizationCanceled, refusal))
            }
            send(Delivery(peer: peer, line: pending.line(result)))
        }
    }

    // MARK: Vetting

    /// The installed app `client` names, when this connection is that app as installed.
    private func vet(_ client: String, peer: ServicePeer, user: Account) throws -> InstalledApp {
        try BundleIdentifier.validate(client)
        let app: InstalledApp
        let isWebHost = client == BrowserInstallation.hostBundleIdentifier
        if isWebHost {
            guard let webHost = services.webHost else {
                // swift-format-ignore
                throw ServiceError(.unsupported, Phrase("this daemon takes no browser's reports (it has no Public Suffix List: apt-get install publicsuffix)", context: "daemon"))
            }
            app = webHost.app
        } else {
            do {
                app = try services.apps.app(client)
            } catch {
                throw refuse(Phrase.Value.said(by: error), client: client, peer: peer, user: user)
            }
        }
        if vetted[peer]?.contains(client) == true { return app }
        guard let credentials = peer.credentials else {
            throw ServiceError(.unauthorized, Phrase("the daemon could not tell who is calling", context: "daemon"))
        }
        if let refusal = services.vetting.refusal(
            pid: credentials.pid, uid: credentials.uid, app: app, proof: proofs[peer])
        {
            // The process's faults stay in English: they are the guardians' record.
            let why = Phrase(
                "a request claiming to be {app} ({client}) was refused: {refusal}", context: "daemon",
                ["app": app.displayName, "client": client, "refusal": refusal])
            throw refuse(why, client: client, peer: peer, user: user)
        }
        if isWebHost, let webHost = services.webHost {
            // Its word on the browser's tabs counts only when a real browser started it.
            switch services.vetting.browser(
                startingHost: credentials.pid, uid: credentials.uid, browsers: webHost.browsers)
            {
            case .success(let browser): browsers[peer] = browser
            case .failure(let refusal):
                let why = Phrase(
                    "a report of a browser's tabs was refused: {refusal}", context: "daemon",
                    ["refusal": refusal.description])
                throw refuse(why, client: client, peer: peer, user: user)
            }
        }
        vetted[peer, default: []].insert(client)
        return app
    }

    /// A refusal for `why`, recorded for the guardians (in English) and told to the app (as
    /// a phrase, for a reader in another language).
    private func refuse(_ why: any PhraseFilling, client: String, peer: ServicePeer, user: Account) -> ServiceError {
        let why = why.phraseValue
        if recordedRefusals[peer, default: []].insert(client).inserted {
            // The refusal is what the guardians' record says: as written when it is a phrase,
            // for a guardian reading in another language; an error's own words otherwise.
            let event =
                if case .phrase(let phrase) = why {
                    ChildEvent(at: services.now(), kind: .refused, actor: user.name, phrase: phrase)
                } else {
                    ChildEvent(
                        at: services.now(), kind: .refused, actor: user.name,
                        detail: why.rendered { english, _ in english })
                }
            services.record(event, user.uid)
        }
        return ServiceError(
            .unauthorized,
            Phrase(
                "{why}. The attempt was recorded for {user}'s guardians.", context: "daemon",
                ["why": why, "user": user.name]))
    }

    static func serviceError(_ error: any Error) -> ServiceError {
        if let error = error as? ServiceError { return error }
        return ServiceError(
            .internalFailure,
            Phrase("the daemon failed: {error}", context: "daemon", ["error": Phrase.Value.said(by: error)]))
    }
}
