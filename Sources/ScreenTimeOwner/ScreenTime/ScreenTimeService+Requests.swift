@_spi(Screenward) import DeviceActivity
@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ManagedSettings
@_spi(Screenward) import ManagedSettingsUI
@_spi(Screenward) import ScreenTimePolicy
import ScreenwardBasics
import ScreenwardIPC

/// What one request to the owner carries besides its body.
struct ScreenTimeRequest {
    let peer: ServicePeer
    /// Deliveries the request made due, sent after its reply (an `intervalDidStart` at
    /// once, callbacks owed to a monitor that attached).
    var after: [Delivery] = []
}

/// Each request a client can make, checked and carried out.
extension ScreenTimeService {
    /// Answers one request line from `peer`: the reply first, then anything the
    /// request made due.
    public func handle(frame: Data, from peer: ServicePeer) -> [Delivery] {
        var request = ScreenTimeRequest(peer: peer)
        guard let routed = Self.routes.reply(to: frame, by: self, &request), let line = routed.line else { return [] }
        if let lie = routed.failure as? ClientLie {
            let client = (try? FrameHead.decode(from: frame))?.client ?? "?"
            lies.append(ClientLieReport(peer: peer, client: client, what: lie.refusal.message))
        }
        return [Delivery(peer: peer, line: line)] + request.after + runDue()
    }

    /// The methods this owner answers.
    public static var methods: Set<String> { routes.methods }

    typealias Route = ServiceRoutes<ScreenTimeService, ScreenTimeRequest>.Route

    /// `method` answered for the client the request names, once its name is a bundle identifier.
    private static func client<Request, Reply>(
        _ method: ServiceMethod<Request, Reply>,
        _ handler: @escaping @Sendable (ScreenTimeService, inout ScreenTimeRequest, String, Request) throws -> Reply
    ) -> Route {
        .on(method, errors: serviceError) { service, context, request in
            try BundleIdentifier.validate(request.client)
            return try handler(service, &context, request.client, request.body)
        }
    }

    static let routes = ServiceRoutes<ScreenTimeService, ScreenTimeRequest>(
        [
            client(AuthorizationMethods.request) { service, context, client, member in
                let status = try service.requestAuthorization(client, member)
                context.after += service.statusChanged(client)
                return status
            },
            client(AuthorizationMethods.status) { service, _, client, _ in
                try service.ledger.grant(for: client) == nil ? .notDetermined : .approved
            },
            client(AuthorizationMethods.revoke) { service, context, client, _ in
                context.after += try service.revoke(client)
                return Empty()
            },
            client(AuthorizationMethods.watchStatus) { service, context, client, _ in
                if service.statusWatchers[client]?.contains(context.peer) != true {
                    service.statusWatchers[client, default: []].append(context.peer)
                }
                return try service.ledger.grant(for: client) == nil ? .notDetermined : .approved
            },
            .on(AccessMethods.list, errors: serviceError) { service, _, _ in try service.appsWithAccess() },
            // A person's own account: nobody else decides what their apps loosen.
            client(AuthorizationMethods.guardianApproval) { service, _, client, _ in
                _ = try service.tokens(client)
                return GuardianApprovalGrant(until: nil)
            },
            client(AuthorizationMethods.issueSelection) { service, _, client, request in
                try service.issueSelection(try service.tokens(client), request)
            },
            client(AuthorizationMethods.describeSelection) { service, _, client, selection in
                try service.describeSelection(try service.tokens(client), selection)
            },
            client(StoreMethods.read) { service, _, client, store in
                try checkStoreName(store.name)
                let tokens = try service.tokens(client)
                let contents =
                    try service.ledger.storeContents(client: client, name: store.name)
                    ?? StoreContents(shield: .init(), application: .init())
                return tokens.toClient(contents)
            },
            client(StoreMethods.change) { service, _, client, change in
                try service.changeStore(try service.tokens(client), change)
            },
            client(StoreMethods.clear) { service, _, client, store in
                try checkStoreName(store.name)
                _ = try service.tokens(client)
                try service.ledger.saveStore(
                    client: client, name: store.name, contents: StoreContents(shield: .init(), application: .init()),
                    at: service.now())
                service.storesChanged()
                return Empty()
            },
            client(AppGroupMethods.read) { service, _, client, request in
                _ = try service.tokens(client)
                try checkAppGroupKey(request.key)
                return AppGroupValue(value: try service.ledger.appGroupValue(client: client, key: request.key))
            },
            client(AppGroupMethods.write) { service, _, client, request in
                try service.writeAppGroupValue(request, client: client)
            },
            client(ActivityMethods.start) { service, context, client, registration in
                context.after += try service.startMonitoring(try service.tokens(client), registration)
                return Empty()
            },
            client(ActivityMethods.stop) { service, context, client, names in
                try checkNames(names.map(\.rawValue))
                _ = try service.tokens(client)
                let time = service.now()
                context.after += try service.engineStep(at: time) { queue in
                    try service.engine.unregister(names, owner: client, at: time, alongside: queue)
                }
                return Empty()
            },
            client(ActivityMethods.list) { service, _, client, _ in
                let tokens = try service.tokens(client)
                return service.engine.activities.filter { $0.owner == client }.map { activity in
                    ActivityRegistration(
                        name: activity.name, schedule: activity.schedule,
                        events: activity.events.mapValues(tokens.toClient))
                }
            },
            client(ActivityMethods.attachMonitor) { service, context, client, _ in
                _ = try service.tokens(client)
                context.after += try service.monitors.attach(owner: client, peer: context.peer, at: service.now())
                return Empty()
            },
            client(ActivityMethods.acknowledge) { service, _, client, sequences in
                try service.monitors.acknowledge(owner: client, sequences: sequences)
                return Empty()
            },
            client(ShieldConfigurationMethods.attach) { service, context, client, _ in
                _ = try service.tokens(client)
                context.after += service.attachShieldExtension(.configuration, owner: client, peer: context.peer)
                return Empty()
            },
            client(ShieldActionMethods.attach) { service, context, client, _ in
                _ = try service.tokens(client)
                context.after += service.attachShieldExtension(.action, owner: client, peer: context.peer)
                return Empty()
            },
            client(ShieldConfigurationMethods.answer) { service, context, client, answer in
                service.acceptShieldAnswer(
                    .configuration(ShieldRequestID(rawValue: answer.id), answer.configuration), owner: client,
                    peer: context.peer)
                return Empty()
            },
            client(ShieldActionMethods.answer) { service, context, client, answer in
                service.acceptShieldAnswer(
                    .action(ShieldRequestID(rawValue: answer.id), answer.response), owner: client, peer: context.peer)
                return Empty()
            },
            client(WebHostMethods.shieldEvent) { service, context, _, event in
                guard event.site.utf8.count <= HostName.maximumLength + 2, !event.site.isEmpty else {
                    throw ServiceError(
                        .invalidArgument,
                        Phrase("not a website: {site}", context: "service", ["site": String(event.site.prefix(80))]))
                }
                service.webShieldEvents.append((event, context.peer))
                service.onWebShieldEvent?()
                return Empty()
            },
            client(WebHostMethods.windows) { service, context, _, report in
                try service.takeBrowserWindows(report, from: context.peer)
                return Empty()
            },
        ],
        unknown: { method in
            ServiceError(
                .unknownMethod,
                Phrase(
                    "the agent knows no request \"{method}\" (is the agent older than the app?)", context: "service",
                    ["method": method]))
        })

    private func writeAppGroupValue(_ request: AppGroupWrite, client: String) throws -> Empty {
        _ = try tokens(client)
        try Self.checkAppGroupKey(request.key)
        if let value = request.value, value.count > AppGroupStorage.maximumValueBytes {
            throw ServiceError(
                .limitExceeded,
                Phrase(
                    "a value of {bytes} bytes; at most {maximum} are kept under one key", context: "service",
                    ["bytes": "\(value.count)", "maximum": "\(AppGroupStorage.maximumValueBytes)"]))
        }
        do {
            try ledger.setAppGroupValue(
                client: client, key: request.key, value: request.value, maximumKeys: AppGroupStorage.maximumKeys,
                at: now())
        } catch is AppGroupFull {
            throw ServiceError(
                .limitExceeded,
                Phrase(
                    "{client} already keeps {maximum} values; remove one first", context: "service",
                    ["client": client, "maximum": "\(AppGroupStorage.maximumKeys)"]))
        }
        return Empty()
    }

    // MARK: Authorization

    /// `.individual` is recorded as asked. A person's own agent asks the person first (its
    /// dialog) and passes on only what needs nobody: an app that holds access already, or a
    /// request for `.child`, refused here.
    private func requestAuthorization(_ client: String, _ member: FamilyControlsMember) throws -> AuthorizationStatus {
        guard member == .individual else {
            // This owner is a person's own agent: their account is nobody's child. (A
            // managed user's owner is the system daemon, which asks a guardian.)
            // swift-format-ignore
            throw ServiceError(
                .invalidAccountType,
                Phrase("this account is not managed by a guardian, so it cannot grant .child authorization; request .individual to manage this person's own use, or have a guardian run `screenward child add USER`", context: "service"))
        }
        try recordGrant(client, .individual)
        return .approved
    }

    private func recordGrant(_ client: String, _ member: FamilyControlsMember) throws {
        let key = Data((0..<32).map { _ in UInt8.random(in: .min ... .max) }).base64EncodedString()
        _ = try ledger.authorize(client: client, member: member.rawValue, grantKey: key, at: now())
    }

    // MARK: Authorization the person allowed (a person's own agent)

    /// Whether `client` holds authorization already: asking again then asks nobody.
    @_spi(Screenward) public func holdsAuthorization(_ client: String) throws -> Bool {
        try ledger.grant(for: client) != nil
    }

    /// Records `.individual` for `client`: the person allowed it in their agent's dialog.
    /// Returns the pushes that tell its watching connections.
    @_spi(Screenward) public func grantIndividual(_ client: String) throws -> [Delivery] {
        try recordGrant(client, .individual)
        return statusChanged(client)
    }

    // MARK: Apps with access

    /// The apps that hold access (this owner's own built-in ones left out), and what each restricts.
    public func appsWithAccess() throws -> [AppAccess] {
        var problems: [String] = []
        let stores = try ledger.allStores(problems: &problems)
        problems.forEach(report)
        return try ledger.grants().filter { !Self.builtInClients.contains($0.client) }.map { grant in
            let mine = stores.filter { $0.owner == grant.client }.compactMap { store -> (String, Int)? in
                let contents = StoreContents(
                    shield: store.shield, application: store.application, webContent: store.webContent)
                return contents.isEmpty ? nil : (store.name, AppAccess.count(contents))
            }
            return AppAccess(
                app: grant.client, member: grant.member, since: grant.grantedAt, stores: mine.map(\.0),
                shielded: mine.map(\.1).reduce(0, +),
                activities: engine.activities.filter { $0.owner == grant.client }.map(\.name.rawValue).sorted())
        }
    }

    // MARK: Authorization a guardian approved (the daemon's placement)

    /// Records `.child` for `client`: a guardian approved it for this managed user. Returns the
    /// pushes that tell its watching connections.
    @discardableResult
    public func grantChild(_ client: String) throws -> [Delivery] {
        try recordGrant(client, .child)
        return statusChanged(client)
    }

    /// The pushes telling `client`'s watching connections its status now.
    func statusChanged(_ client: String) -> [Delivery] {
        guard let watchers = statusWatchers[client], !watchers.isEmpty,
            let status = try? ledger.grant(for: client) == nil ? AuthorizationStatus.notDetermined : .approved,
            let line = try? AuthorizationMethods.statusChanged.frame(status)
        else { return [] }
        return watchers.filter(\.connected).map { Delivery(peer: $0, line: line) }
    }

    /// The app that holds `.child` for this user, if any (there is at most one).
    public func childAuthorizationHolder() throws -> String? {
        try ledger.clients(withMember: FamilyControlsMember.child.rawValue).first
    }

    /// Revokes `client`'s authorization, as its own request would (a guardian approved it).
    /// Returns the pushes that tell its watching connections.
    @discardableResult
    public func revokeAuthorization(of client: String) throws -> [Delivery] {
        try revoke(client)
    }

    private func revoke(_ client: String) throws -> [Delivery] {
        guard try ledger.grant(for: client) != nil else { return [] }
        // A revoked app is told nothing more: its activities end without callbacks.
        _ = try engine.unregister([], owner: client, at: now())
        try ledger.revokeAuthorization(client: client)
        shieldExtensions.forget(owner: client)
        storesChanged()
        return statusChanged(client)
    }

    /// The client's token translator; refuses a client that is not authorised.
    func tokens(_ client: String) throws -> ClientTokens {
        guard let grant = try ledger.grant(for: client) else {
            // swift-format-ignore
            throw ServiceError(
                .unauthorized,
                Phrase("{client} is not authorised: call AuthorizationCenter.shared.requestAuthorization(for: .individual) first", context: "service", ["client": client]))
        }
        return ClientTokens(grant: grant, ledger: ledger)
    }

    // MARK: Selection (the picker's back end)

    /// The ids `client`'s selection was issued for, for the activity picker the owner shows
    /// (`picker.present`); tokens that are not the client's are left out, each with a line
    /// in `skipped`. Refuses a client that is not authorised.
    @_spi(Screenward) public func pickerOpening(client: String, _ selection: FamilyActivitySelection) throws
        -> SelectionDescription
    {
        try BundleIdentifier.validate(client)
        return try describeSelection(try tokens(client), selection)
    }

    /// What `client`'s one token stands for, for the label the owner draws (`label.show`): an
    /// application's name and icon, a category's name, a website's domain. Refuses a token that
    /// is not the client's.
    @_spi(Screenward) public func labelContents(client: String, _ token: FamilyActivitySelection) throws
        -> LabelContents
    {
        try BundleIdentifier.validate(client)
        let count = token.applicationTokens.count + token.categoryTokens.count + token.webDomainTokens.count
        guard count == 1 else {
            throw ServiceError(
                .invalidArgument,
                Phrase("a label shows one token, not {count}", context: "service", ["count": "\(count)"]))
        }
        let described = try describeSelection(try tokens(client), token)
        if let id = described.items.applications.first {
            let app = directory.application(publicID: id)
            return LabelContents(title: app?.displayName ?? id, icon: app?.iconName)
        }
        if let id = described.items.categories.first {
            let name = directory.categories.categories.first { $0.id == id }?.name ?? id
            return LabelContents(title: name, context: "category", icon: nil)
        }
        if let domain = described.items.webDomains.first { return LabelContents(title: domain, icon: "web-browser") }
        // swift-format-ignore
        throw ServiceError(.invalidArgument, Phrase("this token is not one of {client}'s (issued to another app, or before its authorization was revoked)", context: "service", ["client": client]))
    }

    /// `client`'s tokens for what the person chose in the picker the owner showed.
    @_spi(Screenward) public func pickerChose(client: String, _ chosen: SelectionRequest) throws
        -> FamilyActivitySelection
    {
        try BundleIdentifier.validate(client)
        return try issueSelection(try tokens(client), chosen)
    }

    private func issueSelection(_ tokens: ClientTokens, _ request: SelectionRequest) throws -> FamilyActivitySelection {
        let count = request.applications.count + request.categories.count + request.webDomains.count
        guard count <= Self.maximumSelectionItems else {
            throw ServiceError(
                .limitExceeded,
                Phrase(
                    "a selection of {count} items; at most {maximum} can be picked at once", context: "service",
                    ["count": "\(count)", "maximum": "\(Self.maximumSelectionItems)"]))
        }
        var issued: [IssuedToken] = []
        // With `includeEntireCategory`, a picked category brings each installed application of it
        // (Apple's meaning: its members, not only the category as a whole).
        var applications = request.applications
        if request.includeEntireCategory {
            for category in request.categories where directory.isCategory(category) {
                for id in directory.applicationIDs(inCategory: category) where !applications.contains(id) {
                    applications.append(id)
                }
            }
            guard
                applications.count + request.categories.count + request.webDomains.count
                    <= Self.maximumSelectionItems
            else {
                // swift-format-ignore
                throw ServiceError(.limitExceeded, Phrase("the categories picked hold more than {maximum} applications; pick fewer, or without includeEntireCategory", context: "service", ["maximum": "\(Self.maximumSelectionItems)"]))
            }
        }
        for id in applications {
            guard let app = directory.application(publicID: id) else {
                // swift-format-ignore
                throw ServiceError(
                    .invalidArgument,
                    Phrase("no application \"{id}\" is installed (ids are desktop ids such as firefox.desktop, or wmclass:<class>)", context: "service", ["id": String(id.prefix(120))]))
            }
            issued.append(
                tokens.issue(
                    .application, deviceToken: directory.minter.applicationToken(for: app).opaqueValue, label: id))
        }
        for id in request.categories {
            guard directory.isCategory(id) else {
                let known = directory.categories.categories.map(\.id).joined(separator: ", ")
                throw ServiceError(
                    .invalidArgument,
                    Phrase(
                        "no activity category \"{id}\"; the categories are {known}", context: "service",
                        ["id": String(id.prefix(60)), "known": known]))
            }
            issued.append(
                tokens.issue(
                    .category, deviceToken: directory.minter.categoryToken(forCategory: id).opaqueValue, label: id))
        }
        for text in request.webDomains {
            guard let domain = websiteName(text) else {
                throw ServiceError(
                    .invalidArgument,
                    Phrase("\"{text}\" is not a domain name", context: "service", ["text": String(text.prefix(120))]))
            }
            issued.append(
                tokens.issue(
                    .webDomain, deviceToken: directory.minter.webDomainToken(forDomain: domain).opaqueValue,
                    label: domain))
        }
        try ledger.recordIssuedTokens(issued, client: tokens.grant.client)
        func pick<Item>(_ kind: TokenKind) -> Set<Token<Item>> {
            Set(issued.filter { $0.kind == kind }.map { Token<Item>(opaqueValue: $0.token) })
        }
        return FamilyActivitySelection(
            includeEntireCategory: request.includeEntireCategory, applicationTokens: pick(.application),
            categoryTokens: pick(.category), webDomainTokens: pick(.webDomain))
    }

    /// The name a web domain token is issued under: the website as it is counted, its
    /// registrable domain (`www.youtube.com` is `youtube.com`, whose time and shields the
    /// token then stands for), where this owner takes the browsers' reports and so has the
    /// Public Suffix List; the host as typed, in ASCII, where it does not.
    func websiteName(_ text: String) -> String? {
        guard let domain = ItemDirectory.normalizedDomain(text) else { return nil }
        guard let addresses = browserTabs?.addresses, let website = try? addresses.website(named: domain) else {
            return domain
        }
        return website.domain
    }

    /// The ids this client's tokens were issued for. Only the client's own record is read,
    /// so another app's token (or one from before a revocation) is never named.
    private func describeSelection(_ tokens: ClientTokens, _ selection: FamilyActivitySelection) throws
        -> SelectionDescription
    {
        let client = tokens.grant.client
        var skipped: [String] = []
        func labels<Item>(_ set: Set<Token<Item>>, _ kind: TokenKind) throws -> [String] {
            try ClientTokens.checkSize(of: set, kind)
            let issued = try ledger.issuedTokens(client: client, kind: kind, set.map(\.opaqueValue))
            for token in set where issued[token.opaqueValue] == nil {
                skipped.append(
                    """
                    \(token): not a \(kind.rawValue) token of \(client) \
                    (issued to another app, or before its authorization was revoked)
                    """
                )
            }
            return issued.values.map(\.label).sorted()
        }
        let items = SelectionRequest(
            applications: try labels(selection.applicationTokens, .application),
            categories: try labels(selection.categoryTokens, .category),
            webDomains: try labels(selection.webDomainTokens, .webDomain),
            includeEntireCategory: selection.includeEntireCategory)
        return SelectionDescription(items: items, skipped: skipped.sorted())
    }

    // MARK: Stores

    private func changeStore(_ tokens: ClientTokens, _ change: StoreChange) throws -> Empty {
        let client = tokens.grant.client
        try Self.checkStoreName(change.name)
        // The limits first, on the client's own tokens: a list far over them is refused
        // before each of its tokens is looked up.
        var requested = StoreContents(shield: .init(), application: .init())
        for setting in change.settings { requested.apply(setting) }
        if requested.application.denyAppInstallation == true,
            tokens.grant.member == FamilyControlsMember.individual.rawValue
        {
            // swift-format-ignore
            throw ServiceError(
                .unsupported,
                Phrase("application.denyAppInstallation is enforced for managed users (child mode) only: in a person's own account every program is theirs to run; shield or block the applications instead", context: "service"))
        }
        if let problem = ManagedSettingsStore.limitProblem(requested) { throw ServiceError(.limitExceeded, problem) }
        let existing = try ledger.storeContents(client: client, name: change.name)
        if existing == nil, try ledger.storeNames(client: client).count >= Self.maximumStoresPerClient {
            throw ServiceError(
                .limitExceeded,
                Phrase(
                    "{client} already uses {maximum} settings stores; clear one before using \"{store}\"",
                    context: "service",
                    ["client": client, "maximum": "\(Self.maximumStoresPerClient)", "store": change.name]))
        }
        var contents = existing ?? StoreContents(shield: .init(), application: .init())
        for setting in change.settings { contents.apply(try tokens.toDevice(setting)) }
        if let problem = ManagedSettingsStore.limitProblem(contents) { throw ServiceError(.limitExceeded, problem) }
        try ledger.saveStore(client: client, name: change.name, contents: contents, at: now())
        storesChanged()
        return Empty()
    }

    // MARK: Activities

    private func startMonitoring(_ tokens: ClientTokens, _ registration: ActivityRegistration) throws -> [Delivery] {
        let client = tokens.grant.client
        let time = now()
        let builtIn = Self.builtInClients.contains(client)
        if let problem = registration.schedule.monitoringProblem(
            events: registration.events, now: time, calendar: calendar()),
            !(builtIn && (problem == .intervalTooShort || problem == .intervalTooLong))
        {
            throw problem
        }
        // Screenward's own bounds (Apple documents none): an app cannot make the
        // engine's every step costly for everyone.
        try Self.checkNames([registration.name.rawValue] + registration.events.keys.map(\.rawValue))
        guard registration.events.count <= Self.maximumEventsPerActivity else {
            throw ServiceError(
                .invalidArgument,
                Phrase(
                    "an activity may watch at most {maximum} events ({count} given)", context: "service",
                    ["maximum": "\(Self.maximumEventsPerActivity)", "count": "\(registration.events.count)"]))
        }
        let mine = engine.activities.filter { $0.owner == client }
        if !builtIn, mine.count >= DeviceActivityCenter.maximumActivities,
            !mine.contains(where: { $0.name == registration.name })
        {
            throw DeviceActivityCenter.MonitoringError.excessiveActivities
        }
        let events = try registration.events.mapValues(tokens.toDevice)
        return try engineStep(at: time) { queue in
            try engine.register(
                registration.name, owner: client, schedule: registration.schedule, events: events, at: time,
                alongside: queue)
        }
    }

    // MARK: Usage for an app built into the owner

    /// Focused seconds over `[from, to)` of an event given in `client`'s own tokens (a
    /// token the client was never given is refused).
    public func focusedSeconds(client: String, of event: DeviceActivityEvent, from: Date, to: Date) throws
        -> TimeInterval
    {
        let event = try tokens(client).toDevice(event)
        return to > from ? usage.focusedSeconds(of: event, from: from, to: to) : 0
    }

    // MARK: Checks

    /// Store names are the app's own, but bounded: they are keys in the ledger.
    static func checkStoreName(_ name: String) throws {
        guard !name.isEmpty, name.count <= maximumStoreNameLength else {
            throw ServiceError(
                .invalidArgument,
                Phrase(
                    "a store name must have 1 to {maximum} characters ({count} given)", context: "service",
                    ["maximum": "\(maximumStoreNameLength)", "count": "\(name.count)"]))
        }
    }

    static func checkNames(_ names: [String]) throws {
        guard names.allSatisfy({ !$0.isEmpty && $0.count <= maximumNameLength }) else {
            throw ServiceError(
                .invalidArgument,
                Phrase(
                    "activity and event names must have 1 to {maximum} characters", context: "service",
                    ["maximum": "\(maximumNameLength)"]))
        }
    }

    // MARK: Errors

    static func checkAppGroupKey(_ key: String) throws {
        guard !key.isEmpty, key.count <= AppGroupStorage.maximumKeyLength else {
            throw ServiceError(
                .invalidArgument,
                Phrase(
                    "a key is 1 to {maximum} characters", context: "service",
                    ["maximum": "\(AppGroupStorage.maximumKeyLength)"]))
        }
    }

    static func serviceError(_ error: any Error) -> ServiceError {
        switch error {
        case let error as ServiceError: return error
        case let lie as ClientLie: return lie.refusal
        case let error as DeviceActivityCenter.MonitoringError:
            let code: ServiceError.Code =
                switch error {
                case .excessiveActivities: .limitExceeded
                case .intervalTooLong: .intervalTooLong
                case .intervalTooShort: .intervalTooShort
                case .invalidDateComponents: .invalidDateComponents
                case .unauthorized: .unauthorized
                }
            // Apple's error as the API module words it (the module's to phrase, not the owner's).
            return ServiceError(code, error.description)
        default:
            // An error that comes as a phrase is told in the reader's language with the rest.
            let cause: any PhraseFilling
            if let phrased = error as? any PhrasedError { cause = phrased.phrase } else { cause = "\(error)" }
            return ServiceError(
                .internalFailure, Phrase("the agent failed: {error}", context: "service", ["error": cause]))
        }
    }
}
