import Crypto
import DeviceActivity
import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardBasics
import ScreenwardIPC
import UsageLedger

/// Translates between the tokens one client holds and the device-wide tokens the
/// ledger, the stores and the engine use.
///
/// A client's token is a keyed hash of the device token under the client's grant
/// key: two apps never hold the same token for the same application, and a new
/// grant (after a revocation) makes every old token meaningless. Going back needs
/// the record of what was issued, so a token this client was never given is refused.
package struct ClientTokens {
    package let grant: ClientGrant
    package let ledger: Ledger

    package init(grant: ClientGrant, ledger: Ledger) {
        self.grant = grant
        self.ledger = ledger
    }

    func clientToken(forDevice deviceToken: String, kind: TokenKind) -> String {
        let message = Data("screenward-client-token-v1\u{0}\(kind.rawValue)\u{0}\(deviceToken)".utf8)
        let mac = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: Data(grant.grantKey.utf8)))
        return Data(mac.prefix(16)).base64URLWithoutPadding
    }

    /// Issues (and records) the client's token for a device token.
    package func issue(_ kind: TokenKind, deviceToken: String, label: String) -> IssuedToken {
        IssuedToken(
            kind: kind, token: clientToken(forDevice: deviceToken, kind: kind), deviceToken: deviceToken, label: label)
    }

    // MARK: Client → device

    /// The most tokens one set in a request may hold (stores hold 50; an event or a
    /// category policy's exceptions rarely name more than a few dozen). Checked before
    /// any is looked up.
    static let maximumTokensPerSet = 1_000

    package static func checkSize<Item>(of tokens: Set<Token<Item>>, _ kind: TokenKind) throws {
        guard tokens.count <= maximumTokensPerSet else {
            let values: [String: any PhraseFilling] = ["count": "\(tokens.count)", "maximum": "\(maximumTokensPerSet)"]
            // One text per kind: the kind is no word to glue into a sentence.
            let message: Phrase =
                switch kind {
                case .application:
                    Phrase(
                        "a set of {count} application tokens; at most {maximum} are allowed in one set",
                        context: "service", values)
                case .category:
                    Phrase(
                        "a set of {count} category tokens; at most {maximum} are allowed in one set",
                        context: "service", values)
                case .webDomain:
                    Phrase(
                        "a set of {count} webDomain tokens; at most {maximum} are allowed in one set",
                        context: "service", values)
                }
            throw ServiceError(.limitExceeded, message)
        }
    }

    func toDevice<Item>(_ tokens: Set<Token<Item>>, _ kind: TokenKind) throws -> Set<Token<Item>> {
        try Self.checkSize(of: tokens, kind)
        let issued = try ledger.issuedTokens(client: grant.client, kind: kind, tokens.map(\.opaqueValue))
        return Set(
            try tokens.map { token in
                guard let known = issued[token.opaqueValue] else {
                    throw ClientLie(ServiceError(.invalidArgument, Self.notIssued(token, kind, to: grant.client)))
                }
                return Token<Item>(opaqueValue: known.deviceToken)
            })
    }

    /// The refusal of a token the client was never given, one text per kind (the kind is
    /// no word to glue into a sentence).
    static func notIssued<Item>(_ token: Token<Item>, _ kind: TokenKind, to client: String) -> Phrase {
        let values: [String: any PhraseFilling] = ["token": "\(token)", "client": client]
        // swift-format-ignore
        return switch kind {
        case .application:
            Phrase("{token} is not an application token of {client} (it was issued to another app, or before the app's authorization was revoked)", context: "service", values)
        case .category:
            Phrase("{token} is not a category token of {client} (it was issued to another app, or before the app's authorization was revoked)", context: "service", values)
        case .webDomain:
            Phrase("{token} is not a webDomain token of {client} (it was issued to another app, or before the app's authorization was revoked)", context: "service", values)
        }
    }

    func toDevice<Child>(_ policy: ShieldSettings.ActivityCategoryPolicy<Child>, _ childKind: TokenKind) throws
        -> ShieldSettings.ActivityCategoryPolicy<Child>
    {
        switch policy {
        case .none: .none
        case .all(let except): .all(except: try toDevice(except, childKind))
        case .specific(let categories, let except):
            .specific(try toDevice(categories, .category), except: try toDevice(except, childKind))
        }
    }

    package func toDevice(_ setting: StoreChange.Setting) throws -> StoreChange.Setting {
        switch setting {
        case .shieldApplications(let tokens): .shieldApplications(try tokens.map { try toDevice($0, .application) })
        case .shieldApplicationCategories(let policy):
            .shieldApplicationCategories(try policy.map { try toDevice($0, .application) })
        case .shieldWebDomains(let tokens): .shieldWebDomains(try tokens.map { try toDevice($0, .webDomain) })
        case .shieldWebDomainCategories(let policy):
            .shieldWebDomainCategories(try policy.map { try toDevice($0, .webDomain) })
        case .denyAppInstallation(let value): .denyAppInstallation(value)
        case .webContentBlockedByFilter(let policy): .webContentBlockedByFilter(try policy.map(WebFilter.checked))
        case .blockedApplications(let apps):
            .blockedApplications(
                try apps.map { apps in
                    Set(
                        try apps.map { app in
                            var copy = app
                            copy.token = try app.token.map { try toDevice([$0], .application).first! }
                            return copy
                        })
                })
        }
    }

    package func toDevice(_ event: DeviceActivityEvent) throws -> DeviceActivityEvent {
        var copy = event
        copy.applications = try toDevice(event.applications, .application)
        copy.categories = try toDevice(event.categories, .category)
        copy.webDomains = try toDevice(event.webDomains, .webDomain)
        return copy
    }

    // MARK: Device → client

    func toClient<Item>(_ tokens: Set<Token<Item>>, _ kind: TokenKind) -> Set<Token<Item>> {
        Set(tokens.map { Token<Item>(opaqueValue: clientToken(forDevice: $0.opaqueValue, kind: kind)) })
    }

    func toClient<Child>(_ policy: ShieldSettings.ActivityCategoryPolicy<Child>, _ childKind: TokenKind)
        -> ShieldSettings.ActivityCategoryPolicy<Child>
    {
        switch policy {
        case .none: .none
        case .all(let except): .all(except: toClient(except, childKind))
        case .specific(let categories, let except):
            .specific(toClient(categories, .category), except: toClient(except, childKind))
        }
    }

    package func toClient(_ contents: StoreContents) -> StoreContents {
        var copy = contents
        copy.shield.applications = contents.shield.applications.map { toClient($0, .application) }
        copy.shield.applicationCategories = contents.shield.applicationCategories.map { toClient($0, .application) }
        copy.shield.webDomains = contents.shield.webDomains.map { toClient($0, .webDomain) }
        copy.shield.webDomainCategories = contents.shield.webDomainCategories.map { toClient($0, .webDomain) }
        copy.application.blockedApplications = contents.application.blockedApplications.map { apps in
            Set(
                apps.map { app in
                    var copy = app
                    copy.token = app.token.map { toClient([$0], .application).first! }
                    return copy
                })
        }
        return copy
    }

    package func toClient(_ event: DeviceActivityEvent) -> DeviceActivityEvent {
        var copy = event
        copy.applications = toClient(event.applications, .application)
        copy.categories = toClient(event.categories, .category)
        copy.webDomains = toClient(event.webDomains, .webDomain)
        return copy
    }
}

/// A request only a lying client sends: a token it was never given (another app's, or
/// made up). It is refused like any bad request, and also reported (`ScreenTimeService.
/// takeLies`), so an extension the owner started that sends it is stopped.
package struct ClientLie: Error {
    package let refusal: ServiceError
    package init(_ refusal: ServiceError) { self.refusal = refusal }
}

/// Who lied, and how.
public struct ClientLieReport: Sendable {
    public var peer: ServicePeer
    public var client: String
    public var what: String

    package init(peer: ServicePeer, client: String, what: String) {
        self.peer = peer
        self.client = client
        self.what = what
    }
}
