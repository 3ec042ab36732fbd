import Crypto
import Foundation
@_spi(Screenward) import ManagedSettings

/// Turns identities into opaque tokens: HMAC-SHA256 under the device secret,
/// truncated to 128 bits and written as URL-safe base64.
///
/// The same identity always gives the same token on this device, and a token says
/// nothing about its application to anyone without the secret and the catalog.
public struct TokenMinter: Sendable {
    private let secret: DeviceSecret

    public init(secret: DeviceSecret) {
        self.secret = secret
    }

    public func applicationToken(for identity: AppIdentity) -> ApplicationToken {
        ApplicationToken(opaqueValue: opaqueValue(domain: "application", input: identity.tokenInput))
    }

    public func categoryToken(forCategory name: String) -> ActivityCategoryToken {
        ActivityCategoryToken(opaqueValue: opaqueValue(domain: "category", input: name))
    }

    public func webDomainToken(forDomain domain: String) -> WebDomainToken {
        WebDomainToken(opaqueValue: opaqueValue(domain: "web-domain", input: domain.lowercased()))
    }

    private func opaqueValue(domain: String, input: String) -> String {
        let message = Data("screenward-token-v1\u{0}\(domain)\u{0}\(input)".utf8)
        let mac = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: secret.bytes))
        return Data(mac.prefix(16)).base64URLWithoutPadding
    }
}

extension Data {
    /// URL-safe base64 without padding: how every token is written.
    package var base64URLWithoutPadding: String {
        base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
