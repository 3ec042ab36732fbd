import Foundation
@_spi(Screenward) import ManagedSettings
import ManagedSettingsUI
import ScreenwardCore
import ScreenwardIPC
import X11Session

/// The browsers' shield pages: how each shielded website's page looks, asked of the app whose
/// store shields it (its configuration data source, over the defaults, as for a window's
/// shield), and what its buttons do (the app's action delegate: `.close` closes the tabs
/// showing it, `.defer` asks for the look again). Runs on the agent's loop; the host's events
/// and the apps' answers hop onto it.
final class WebShieldPages {
    private let host: ServiceHost
    private let stateOwner: any ShieldStateOwner
    private let defaults: ShieldDefaults
    private let language: String
    private let minter: TokenMinter
    private let categories: CategoryTable
    private let log: AgentLog
    private struct Pending {
        var site: String
        var peer: ServicePeer
    }
    private var pending: [ShieldRequestID: Pending] = [:]
    private var wakeups: [LoopWakeup] = []
    /// Far more than the pages a person has open; beyond it the oldest questions are let go.
    private static let maximumPending = 256

    init(
        host: ServiceHost, stateOwner: any ShieldStateOwner, defaults: ShieldDefaults, language: String, minter: TokenMinter, categories: CategoryTable,
        log: AgentLog
    ) {
        self.categories = categories
        self.host = host
        self.stateOwner = stateOwner
        self.defaults = defaults
        self.language = language
        self.minter = minter
        self.log = log
    }

    func start() {
        let answers = Inbox<ShieldAnswer>()
        let answerWakeup = LoopWakeup { [unowned self] in answers.take().forEach(received) }
        stateOwner.onShieldAnswer { answer in
            answers.put(answer)
            answerWakeup.fire()
        }
        let eventWakeup = LoopWakeup { [unowned self] in
            for (event, peer) in host.withService({ $0.takeWebShieldEvents() }) { handle(event, from: peer) }
        }
        host.withService { $0.onWebShieldEvent = { eventWakeup.fire() } }
        wakeups = [answerWakeup, eventWakeup]
    }

    /// Who shields `site`, and how the app's extensions are asked about it.
    private func shielding(_ site: String) -> (owner: String, item: ShieldedItem, subject: ShieldSubject)? {
        let token = minter.webDomainToken(forDomain: site)
        let category = categories.category(ofWebsite: site)
        let categoryToken = category.map { minter.categoryToken(forCategory: $0) }
        guard let reason = stateOwner.effectiveShields.reasons(forWebDomain: token, categories: Set(categoryToken.map { [$0] } ?? [])).first else { return nil }
        let name = HostName.readable(site)
        if case .category = reason.rule, let category, let categoryToken {
            let categoryName = categories.displayName(of: category, language: language)
            return (
                reason.owner, .webDomainInCategory(token, domain: site, category: categoryToken, categoryName: categoryName),
                ShieldSubject(name: name, categoryName: categoryName)
            )
        }
        return (reason.owner, .webDomain(token, domain: site), ShieldSubject(name: name))
    }

    private func handle(_ event: WebShieldEvent, from peer: ServicePeer) {
        guard let (owner, item, subject) = shielding(event.site) else {
            // Shielded no more (the page is about to be given back), or never: nothing to ask.
            return log.debug("web shield: \(event.site) is not shielded; its page's \(event.kind) is ignored")
        }
        switch event.kind {
        case .shown:
            // The default look at once; the app's when it answers.
            send(WebHostMethods.shieldLook, WebShieldLook(site: event.site, look: defaults.resolve(ShieldConfiguration(), for: subject, language: language)), to: peer)
            if let id = stateOwner.requestShieldConfiguration(owner: owner, item: item) { remember(id, event.site, peer) }
        case .primaryButtonPressed, .secondaryButtonPressed:
            let action: ShieldAction = event.kind == .primaryButtonPressed ? .primaryButtonPressed : .secondaryButtonPressed
            if let id = stateOwner.requestShieldAction(owner: owner, action: action, item: item) {
                remember(id, event.site, peer)
            } else {
                // No delegate: the built-in answer (OK closes).
                respond(ShieldActionDelegate.defaultResponse(to: action), site: event.site, peer: peer)
            }
        }
    }

    private func remember(_ id: ShieldRequestID, _ site: String, _ peer: ServicePeer) {
        if pending.count >= Self.maximumPending, let oldest = pending.keys.min(by: { $0.rawValue < $1.rawValue }) {
            pending[oldest] = nil
            stateOwner.cancelShieldRequest(oldest)
        }
        pending[id] = Pending(site: site, peer: peer)
    }

    private func received(_ answer: ShieldAnswer) {
        guard let request = pending.removeValue(forKey: answer.id) else { return }
        switch answer {
        case .configuration(_, let configuration):
            guard let (_, _, subject) = shielding(request.site) else { return }
            log.info("web shield: the look for \(request.site): \"\(configuration.title?.text ?? "(default title)")\"")
            send(WebHostMethods.shieldLook, WebShieldLook(site: request.site, look: defaults.resolve(configuration, for: subject, language: language)), to: request.peer)
        case .action(_, let response):
            respond(response, site: request.site, peer: request.peer)
        }
    }

    private func respond(_ response: ShieldActionResponse, site: String, peer: ServicePeer) {
        log.info("web shield: \(site): \(response)")
        switch response {
        case .close:
            send(WebHostMethods.shieldClose, WebShieldSite(site: site), to: peer)
        case .defer:
            handle(WebShieldEvent(kind: .shown, site: site), from: peer)
        case .none:
            break
        }
    }

    private func send<Body>(_ kind: PushKind<Body>, _ body: Body, to peer: ServicePeer) {
        do {
            peer.send(try kind.frame(body))
        } catch {
            log.error("web shield: \(kind.name) could not be encoded: \(error)")
        }
    }
}
