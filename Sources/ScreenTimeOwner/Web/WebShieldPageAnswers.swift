import Foundation
@_spi(Screenward) import ManagedSettings
import ManagedSettingsUI
import ScreenTimePolicy
import ScreenwardBasics
import ScreenwardIPC

/// Who answers the questions a shield raises: the stores that count, and the apps' shield
/// extensions (a configuration data source for the look, an action delegate for the buttons).
/// The agent's shield state owner is one; the daemon has its own for a managed user's pages.
public protocol ShieldQuestions: AnyObject {
    /// The union of every store that counts now.
    var effectiveShields: EffectiveShields { get }
    /// Nil when the owner has no data source attached (the default look, at once).
    func requestShieldConfiguration(owner: String, item: ShieldedItem) -> ShieldRequestID?
    /// Nil when the owner has no delegate attached (the default response).
    func requestShieldAction(owner: String, action: ShieldAction, item: ShieldedItem) -> ShieldRequestID?
    func cancelShieldRequest(_ id: ShieldRequestID)
}

/// The browsers' shield pages: how each shielded website's page looks, asked of the app whose
/// store shields it (its configuration data source, over the defaults, as for a window's
/// shield), and what its buttons do (the app's action delegate: `.close` closes the tabs
/// showing it, `.defer` asks for the look again). Returns the lines to send; the caller runs
/// it on its loop (the agent's, or the daemon's for a managed user).
public final class WebShieldPageAnswers {
    private let questions: any ShieldQuestions
    private let defaults: ShieldDefaults
    private let language: String
    private let minter: TokenMinter
    private let categories: CategoryTable
    private let icons: ShieldIconImages
    /// Each icon's image, looked up once (nil: none fit to send).
    private var images: [ShieldIcon: String?] = [:]
    private let log: (String) -> Void
    private struct Pending {
        var site: String
        var peer: ServicePeer
    }
    private var pending: [ShieldRequestID: Pending] = [:]
    /// Far more than the pages a person has open; beyond it the oldest questions are let go.
    static let maximumPending = 256

    /// - Parameter icons: where the looks' icons are found (default: this process's data folders).
    public init(
        questions: any ShieldQuestions, defaults: ShieldDefaults, language: String, minter: TokenMinter,
        categories: CategoryTable,
        icons: ShieldIconImages = ShieldIconImages(environment: ProcessInfo.processInfo.environment),
        log: @escaping (String) -> Void
    ) {
        self.icons = icons
        self.questions = questions
        self.defaults = defaults
        self.language = language
        self.minter = minter
        self.categories = categories
        self.log = log
    }

    /// A page was shown, or one of its buttons pressed.
    public func handle(_ event: WebShieldEvent, from peer: ServicePeer) -> [Delivery] {
        guard let (owner, item, subject) = shielding(event.site) else {
            // Shielded no more (the page is about to be given back), or never: nothing to ask.
            return []
        }
        switch event.kind {
        case .shown:
            // The default look at once; the app's when it answers.
            let look = line(
                WebHostMethods.shieldLook,
                self.look(event.site, defaults.resolve(ShieldConfiguration(), for: subject, language: language)),
                to: peer)
            if let id = questions.requestShieldConfiguration(owner: owner, item: item) {
                remember(id, event.site, peer)
            }
            return look
        case .primaryButtonPressed, .secondaryButtonPressed:
            let action: ShieldAction =
                event.kind == .primaryButtonPressed ? .primaryButtonPressed : .secondaryButtonPressed
            if let id = questions.requestShieldAction(owner: owner, action: action, item: item) {
                remember(id, event.site, peer)
                return []
            }
            // No delegate: the built-in answer (OK closes).
            return respond(ShieldActionDelegate.defaultResponse(to: action), site: event.site, peer: peer)
        }
    }

    /// An app's extension answered one of this class's questions (others are ignored).
    public func received(_ answer: ShieldAnswer) -> [Delivery] {
        guard let request = pending.removeValue(forKey: answer.id) else { return [] }
        switch answer {
        case .configuration(_, let configuration):
            guard let (_, _, subject) = shielding(request.site) else { return [] }
            log("web shield: the look for \(request.site): \"\(configuration.title?.text ?? "(default title)")\"")
            return line(
                WebHostMethods.shieldLook,
                look(request.site, defaults.resolve(configuration, for: subject, language: language)), to: request.peer)
        case .action(_, let response):
            return respond(response, site: request.site, peer: request.peer)
        }
    }

    /// The look for `site`'s pages, with its icon's image.
    private func look(_ site: String, _ resolved: ResolvedShield) -> WebShieldLook {
        let image: String?
        if let known = images[resolved.icon] {
            image = known
        } else {
            image = icons.dataURL(for: resolved.icon)
            if image == nil {
                log("web shield: no image to send for the icon \(resolved.icon); the page keeps its own")
            }
            images[resolved.icon] = image
        }
        return WebShieldLook(site: site, look: resolved, iconImage: image)
    }

    /// Who shields `site`, and how the app's extensions are asked about it.
    private func shielding(_ site: String) -> (owner: String, item: ShieldedItem, subject: ShieldSubject)? {
        let token = minter.webDomainToken(forDomain: site)
        let category = categories.category(ofWebsite: site)
        let categoryToken = category.map { minter.categoryToken(forCategory: $0) }
        guard
            let reason = questions.effectiveShields.reasons(
                forWebDomain: token, categories: Set(categoryToken.map { [$0] } ?? [])
            ).first
        else { return nil }
        let name = HostName.readable(site)
        if case .category = reason.rule, let category, let categoryToken {
            let categoryName = categories.displayName(of: category, language: language)
            return (
                reason.owner,
                .webDomainInCategory(token, domain: site, category: categoryToken, categoryName: categoryName),
                ShieldSubject(name: name, categoryName: categoryName)
            )
        }
        return (reason.owner, .webDomain(token, domain: site), ShieldSubject(name: name))
    }

    private func remember(_ id: ShieldRequestID, _ site: String, _ peer: ServicePeer) {
        if pending.count >= Self.maximumPending, let oldest = pending.keys.min(by: { $0.rawValue < $1.rawValue }) {
            pending[oldest] = nil
            questions.cancelShieldRequest(oldest)
        }
        pending[id] = Pending(site: site, peer: peer)
    }

    private func respond(_ response: ShieldActionResponse, site: String, peer: ServicePeer) -> [Delivery] {
        log("web shield: \(site): \(response)")
        switch response {
        case .close:
            return line(WebHostMethods.shieldClose, WebShieldSite(site: site), to: peer)
        case .defer, .askForAccess:
            return handle(WebShieldEvent(kind: .shown, site: site), from: peer)
        case .none:
            return []
        }
    }

    private func line<Body>(_ kind: PushKind<Body>, _ body: Body, to peer: ServicePeer) -> [Delivery] {
        do {
            return [Delivery(peer: peer, line: try kind.frame(body))]
        } catch {
            log("web shield: \(kind.name) could not be encoded: \(error)")
            return []
        }
    }
}
