import Foundation
@_spi(Screenward) import ManagedSettings
@_spi(Screenward) import ManagedSettingsUI
import ScreenTimePolicy
import ScreenwardIPC

/// What a shield covers, as the shield presenter knows it: device-wide tokens and the
/// names the system shows. (Not `ShieldSubject`, which is the default texts' view.)
public enum ShieldedItem: Hashable, Sendable, Codable {
    /// An application shielded for itself. `desktopID` is nil for applications known
    /// only by their window class or executable.
    case application(ApplicationToken, desktopID: String?, name: String)
    /// An application shielded because of its category.
    case applicationInCategory(
        ApplicationToken, desktopID: String?, name: String, category: ActivityCategoryToken, categoryName: String)
    /// A web domain shielded for itself.
    case webDomain(WebDomainToken, domain: String)
    /// A web domain shielded because of its category.
    case webDomainInCategory(WebDomainToken, domain: String, category: ActivityCategoryToken, categoryName: String)
}

/// One question the agent asked an app's shield extension.
public struct ShieldRequestID: Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    public var description: String { "shield request #\(rawValue)" }
}

/// An app's answer to a `ShieldRequestID`, as the presenter receives it.
public enum ShieldAnswer: Hashable, Sendable, Codable {
    /// The data source's configuration. Its texts are the app's, to show as they are
    /// (never as markup); its sizes are bounded only by the 1 MiB message limit.
    case configuration(ShieldRequestID, ShieldConfiguration)
    case action(ShieldRequestID, ShieldActionResponse)

    public var id: ShieldRequestID {
        switch self {
        case .configuration(let id, _), .action(let id, _): id
        }
    }

    /// The same answer to another question (a relay hands it on under its asker's id).
    public func answering(_ id: ShieldRequestID) -> ShieldAnswer {
        switch self {
        case .configuration(_, let configuration): .configuration(id, configuration)
        case .action(_, let response): .action(id, response)
        }
    }
}

/// Which of an app's two shield extensions.
enum ShieldExtensionKind: Sendable {
    case configuration, action
}

/// The shield extensions attached to client connections, per owning app, and the
/// questions they have not answered yet.
///
/// Each app has at most one data source and one action delegate the agent asks: the
/// connection that attached last. A connection that ends takes its attachments and
/// the questions sent to it along (the presenter's own timeout shows the default).
struct ShieldExtensions {
    struct Question {
        var kind: ShieldExtensionKind
        var owner: String
        var peer: ServicePeer
        /// What an action question's shield covers (what `.askForAccess` asks for).
        var item: ShieldedItem?
    }

    /// Questions nobody cancels (a presenter that forgets) cannot grow without bound.
    static let maximumOutstanding = 1024

    private var configuration: [String: ServicePeer] = [:]
    private var action: [String: ServicePeer] = [:]
    /// How many times each app's data source attached: attaching again asks for its
    /// shields to be redrawn (our rules do, when a guardian answers).
    private(set) var configurationAttachments: [String: Int] = [:]
    private var outstanding: [ShieldRequestID: Question] = [:]
    private var lastID: UInt64 = 0
    /// Answers accepted during the current request, for the host to hand out after unlocking.
    private(set) var answers: [ShieldAnswer] = []

    mutating func attach(_ kind: ShieldExtensionKind, owner: String, peer: ServicePeer) {
        switch kind {
        case .configuration:
            configuration[owner] = peer
            configurationAttachments[owner, default: 0] += 1
        case .action: action[owner] = peer
        }
    }

    func peer(_ kind: ShieldExtensionKind, owner: String) -> ServicePeer? {
        let peer =
            switch kind {
            case .configuration: configuration[owner]
            case .action: action[owner]
            }
        return peer.flatMap { $0.connected ? $0 : nil }
    }

    /// The apps with an extension of this kind attached on a live connection.
    func attachedOwners(_ kind: ShieldExtensionKind) -> Set<String> {
        let attached =
            switch kind {
            case .configuration: configuration
            case .action: action
            }
        return Set(attached.filter { $0.value.connected }.keys)
    }

    mutating func ask(_ kind: ShieldExtensionKind, owner: String, peer: ServicePeer, item: ShieldedItem? = nil)
        -> ShieldRequestID
    {
        lastID += 1
        let id = ShieldRequestID(rawValue: lastID)
        if outstanding.count >= Self.maximumOutstanding,
            let oldest = outstanding.keys.min(by: { $0.rawValue < $1.rawValue })
        {
            outstanding.removeValue(forKey: oldest)
        }
        outstanding[id] = Question(kind: kind, owner: owner, peer: peer, item: item)
        return id
    }

    /// The question `id`, when it was asked of this kind of extension, of `owner`, on `peer`,
    /// and not answered or cancelled yet; it is answered now.
    mutating func accept(_ id: ShieldRequestID, _ kind: ShieldExtensionKind, owner: String, peer: ServicePeer)
        -> Question?
    {
        guard let question = outstanding[id], question.kind == kind, question.owner == owner, question.peer == peer
        else {
            return nil
        }
        outstanding.removeValue(forKey: id)
        return question
    }

    /// Approvals of access for delegates not attached yet, by owner.
    private var approvals: [String: [(item: ShieldedItem, guardian: String)]] = [:]

    mutating func awaitDelegate(owner: String, approval item: ShieldedItem, by guardian: String) {
        approvals[owner, default: []].append((item, guardian))
        if approvals[owner]!.count > 16 { approvals[owner]!.removeFirst() }
    }

    mutating func takeApprovals(owner: String) -> [(item: ShieldedItem, guardian: String)] {
        approvals.removeValue(forKey: owner) ?? []
    }

    /// Action questions for a delegate not attached yet, by owner.
    private var awaiting: [String: [Awaiting]] = [:]

    struct Awaiting {
        var id: ShieldRequestID
        var action: ShieldAction
        var item: ShieldedItem
    }

    mutating func awaitDelegate(owner: String, action: ShieldAction, item: ShieldedItem) -> ShieldRequestID {
        lastID += 1
        let id = ShieldRequestID(rawValue: lastID)
        awaiting[owner, default: []].append(Awaiting(id: id, action: action, item: item))
        if awaiting[owner]!.count > 16 { awaiting[owner]!.removeFirst() }
        return id
    }

    /// The questions that waited for `owner`'s delegate, now asked of the one attached.
    mutating func takeAwaiting(owner: String) -> [Awaiting] {
        guard let waiting = awaiting.removeValue(forKey: owner), let peer = action[owner] else { return [] }
        for question in waiting {
            outstanding[question.id] = Question(kind: .action, owner: owner, peer: peer, item: question.item)
        }
        return waiting
    }

    mutating func received(_ answer: ShieldAnswer) { answers.append(answer) }

    mutating func takeAnswers() -> [ShieldAnswer] {
        defer { answers.removeAll() }
        return answers
    }

    mutating func cancel(_ id: ShieldRequestID) {
        outstanding.removeValue(forKey: id)
        for owner in awaiting.keys { awaiting[owner]?.removeAll { $0.id == id } }
    }

    mutating func detach(_ peer: ServicePeer) {
        configuration = configuration.filter { $0.value != peer }
        action = action.filter { $0.value != peer }
        outstanding = outstanding.filter { $0.value.peer != peer }
    }

    /// The app is no longer authorised: its extensions are asked nothing more.
    mutating func forget(owner: String) {
        awaiting.removeValue(forKey: owner)
        approvals.removeValue(forKey: owner)
        configuration.removeValue(forKey: owner)
        action.removeValue(forKey: owner)
        outstanding = outstanding.filter { $0.value.owner != owner }
    }
}

extension ScreenTimeService {
    /// Asks `owner`'s configuration data source about `item`: the question's id and the
    /// line to send once the caller has released the service. Nil when `owner` has no
    /// data source attached or is no longer authorised.
    public func requestShieldConfiguration(owner: String, item: ShieldedItem) -> (ShieldRequestID, Delivery)? {
        guard let peer = shieldExtensions.peer(.configuration, owner: owner),
            let subject = shieldSubject(item, owner: owner)
        else {
            return nil
        }
        let id = shieldExtensions.ask(.configuration, owner: owner, peer: peer)
        guard
            let line = try? ShieldConfigurationMethods.configure.frame(
                ShieldConfigurationRequest(id: id.rawValue, subject: subject))
        else {
            shieldExtensions.cancel(id)
            return nil
        }
        return (id, Delivery(peer: peer, line: line))
    }

    /// Tells `owner`'s shield action delegate that a button was pressed on `item`'s
    /// shield. Nil when `owner` has no delegate attached or is no longer authorised.
    public func requestShieldAction(owner: String, action: ShieldAction, item: ShieldedItem) -> (
        ShieldRequestID, Delivery
    )? {
        guard let peer = shieldExtensions.peer(.action, owner: owner), let subject = shieldSubject(item, owner: owner)
        else {
            return nil
        }
        let id = shieldExtensions.ask(.action, owner: owner, peer: peer, item: item)
        guard
            let line = try? ShieldActionMethods.action.frame(
                ShieldActionRequest(id: id.rawValue, action: action, subject: subject))
        else {
            shieldExtensions.cancel(id)
            return nil
        }
        return (id, Delivery(peer: peer, line: line))
    }

    /// The apps whose shield extensions are attached now (a managed session's agent
    /// asks the daemon only about these).
    public var attachedShieldExtensions: AttachedShieldExtensions {
        let configuration = shieldExtensions.attachedOwners(.configuration)
        return AttachedShieldExtensions(
            configuration: configuration, action: shieldExtensions.attachedOwners(.action),
            configurationAttachments: shieldExtensions.configurationAttachments.filter {
                configuration.contains($0.key)
            })
    }

    /// Forgets a question: its answer, if one still comes, is ignored.
    public func cancelShieldRequest(_ id: ShieldRequestID) {
        shieldExtensions.cancel(id)
    }

    /// The answers accepted since the last call (the host hands them to the presenter).
    public func takeShieldAnswers() -> [ShieldAnswer] {
        shieldExtensions.takeAnswers()
    }

    /// Asks `owner`'s shield action delegate once it attaches: the owner is starting it.
    /// The question is cancelled like any other (the presenter's patience).
    public func requestShieldActionWhenAttached(owner: String, action: ShieldAction, item: ShieldedItem)
        -> ShieldRequestID
    {
        shieldExtensions.awaitDelegate(owner: owner, action: action, item: item)
    }

    /// Returns the questions that waited for this delegate, now sent to it.
    func attachShieldExtension(_ kind: ShieldExtensionKind, owner: String, peer: ServicePeer) -> [Delivery] {
        shieldExtensions.attach(kind, owner: owner, peer: peer)
        // Shields already up for this owner take the new data source's look.
        if kind == .configuration { onShieldDataSourceAttached?(owner) }
        guard kind == .action else { return [] }
        let approvals = shieldExtensions.takeApprovals(owner: owner).compactMap { approval in
            accessApprovalLine(approval.item, owner: owner, by: approval.guardian).map {
                Delivery(peer: peer, line: $0)
            }
        }
        return approvals
            + shieldExtensions.takeAwaiting(owner: owner).compactMap { waiting in
                guard let subject = shieldSubject(waiting.item, owner: owner),
                    let line = try? ShieldActionMethods.action.frame(
                        ShieldActionRequest(id: waiting.id.rawValue, action: waiting.action, subject: subject))
                else {
                    shieldExtensions.cancel(waiting.id)
                    return nil
                }
                return Delivery(peer: peer, line: line)
            }
    }

    /// Keeps an answer when it answers a question asked of `peer` as `owner`'s extension
    /// of this kind; anything else (unknown, cancelled, already answered, or asked of
    /// another connection) is dropped without a word to the sender.
    func acceptShieldAnswer(_ answer: ShieldAnswer, owner: String, peer: ServicePeer) {
        let (id, kind): (ShieldRequestID, ShieldExtensionKind) =
            switch answer {
            case .configuration(let id, _): (id, .configuration)
            case .action(let id, _): (id, .action)
            }
        guard let question = shieldExtensions.accept(id, kind, owner: owner, peer: peer) else { return }
        if case .action(_, .askForAccess) = answer {
            // The shield is redrawn as for `.defer`; the guardians are asked (where there are any).
            if let item = question.item { onAccessAsked?(owner, item) }
            return shieldExtensions.received(.action(id, .defer))
        }
        shieldExtensions.received(answer)
    }

    /// Tells `owner`'s action delegate that `guardian` approved access to `item`: the line to
    /// send now, or none while no delegate is attached (it is told when one attaches: the
    /// caller starts it).
    public func approveAccess(owner: String, item: ShieldedItem, by guardian: String) -> [Delivery] {
        guard let peer = shieldExtensions.peer(.action, owner: owner) else {
            shieldExtensions.awaitDelegate(owner: owner, approval: item, by: guardian)
            return []
        }
        return accessApprovalLine(item, owner: owner, by: guardian).map { [Delivery(peer: peer, line: $0)] } ?? []
    }

    private func accessApprovalLine(_ item: ShieldedItem, owner: String, by guardian: String) -> Data? {
        guard let subject = shieldSubject(item, owner: owner) else { return nil }
        return try? ShieldActionMethods.accessApproved.frame(AccessApproval(subject: subject, guardian: guardian))
    }

    /// `item` in `owner`'s tokens.
    ///
    /// The app may never have been issued a token for the item (an application shielded
    /// because of a category the app picked): it is given its token for it anyway, as
    /// Apple's extensions are, and the token is recorded as issued so the app can use it
    /// in its stores and events like a token from the picker. It reveals nothing the
    /// shield itself does not show. (An application without a desktop id, or a category
    /// the catalog does not know, gets its token without the record: there is no id to
    /// label it with.)
    func shieldSubject(_ item: ShieldedItem, owner: String) -> ShieldRequestSubject? {
        let grant: ClientGrant?
        do {
            grant = try ledger.grant(for: owner)
        } catch {
            report("could not read the authorization of \(owner) (\(error)); its shield shows the default look")
            return nil
        }
        guard let grant else { return nil }
        let tokens = ClientTokens(grant: grant, ledger: ledger)
        var issued: [IssuedToken] = []

        func issue(_ kind: TokenKind, _ deviceToken: String, label: String?) -> String {
            let token = tokens.issue(kind, deviceToken: deviceToken, label: label ?? "")
            if label != nil { issued.append(token) }
            return token.token
        }
        func application(_ token: ApplicationToken, _ desktopID: String?, _ name: String) -> Application {
            Application(
                token: ApplicationToken(opaqueValue: issue(.application, token.opaqueValue, label: desktopID)),
                bundleIdentifier: desktopID, localizedDisplayName: name)
        }
        func webDomain(_ token: WebDomainToken, _ domain: String) -> WebDomain {
            var webDomain = WebDomain(
                token: WebDomainToken(opaqueValue: issue(.webDomain, token.opaqueValue, label: domain)))
            webDomain.domain = domain
            return webDomain
        }
        func category(_ token: ActivityCategoryToken, _ name: String) -> ActivityCategory {
            let id = directory.categoryTokensByID().first { $0.value == token }?.key
            return ActivityCategory(
                token: ActivityCategoryToken(opaqueValue: issue(.category, token.opaqueValue, label: id)),
                localizedDisplayName: name)
        }

        let subject: ShieldRequestSubject =
            switch item {
            case .application(let token, let desktopID, let name):
                .application(application(token, desktopID, name))
            case .applicationInCategory(let token, let desktopID, let name, let categoryToken, let categoryName):
                .applicationInCategory(application(token, desktopID, name), category(categoryToken, categoryName))
            case .webDomain(let token, let domain):
                .webDomain(webDomain(token, domain))
            case .webDomainInCategory(let token, let domain, let categoryToken, let categoryName):
                .webDomainInCategory(webDomain(token, domain), category(categoryToken, categoryName))
            }
        do {
            try ledger.recordIssuedTokens(issued, client: owner)
        } catch {
            report(
                """
                could not record the tokens shown to \(owner)'s shield extension (\(error)); \
                it can still recognise them
                """
            )
        }
        return subject
    }
}

/// The apps of a managed user whose shield extensions are attached to the daemon now,
/// and those whose action delegate the daemon starts when asked (installed ones). The
/// agent asks about these only; any other app's shield takes the default look at once.
public struct AttachedShieldExtensions: Sendable, Hashable, Codable {
    /// Apps with a shield configuration data source.
    public var configuration: Set<String>
    /// Apps with a shield action delegate.
    public var action: Set<String>
    /// Apps with an installed shield action delegate the daemon starts for a press.
    public var startableAction: Set<String>
    /// How many times each data source attached: a count that changes asks the agent to
    /// redraw that app's shields.
    public var configurationAttachments: [String: Int]?

    public init(
        configuration: Set<String> = [], action: Set<String> = [], startableAction: Set<String> = [],
        configurationAttachments: [String: Int]? = nil
    ) {
        self.configuration = configuration
        self.action = action
        self.startableAction = startableAction
        self.configurationAttachments = configurationAttachments
    }

    /// The apps whose data source is new, or attached again, since `before`.
    public func dataSourcesAttached(since before: AttachedShieldExtensions) -> Set<String> {
        configuration.filter { owner in
            !before.configuration.contains(owner)
                || configurationAttachments?[owner] != before.configurationAttachments?[owner]
        }
    }
}
