import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenTimePolicy
import ScreenwardIPC

/// A shield page in a browser tab, as the extension tells its host: it was shown for a
/// website, or one of its buttons was pressed.
public struct WebShieldEvent: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Codable {
        case shown
        case primaryButtonPressed
        case secondaryButtonPressed
    }

    public var kind: Kind
    /// The website as the owner's `WebShields` named it (a store's name for it), or the
    /// host of a page shielded as one of every website.
    public var site: String

    public init(kind: Kind, site: String) {
        self.kind = kind
        self.site = site
    }
}

/// What the owner says back to the pages of one website.
public struct WebShieldLook: Sendable, Hashable, Codable {
    public var site: String
    public var look: ResolvedShield
    /// The look's icon as a `data:` URL (`ShieldIconImages`); nil: the page's built-in one.
    public var iconImage: String?

    public init(site: String, look: ResolvedShield, iconImage: String? = nil) {
        self.site = site
        self.look = look
        self.iconImage = iconImage
    }
}

public struct WebShieldSite: Sendable, Hashable, Codable {
    public var site: String
    public init(site: String) { self.site = site }
}

extension WebHostMethods {
    /// Host → owner: a shield page was shown, or a button on it pressed.
    public static let shieldEvent = ServiceMethod<WebShieldEvent, Empty>("web.shield-event")
    /// Owner → host: how the pages of a website's shield look (the app's configuration over
    /// the defaults), at first and after a `.defer`.
    public static let shieldLook = PushKind<WebShieldLook>("web.shield-look")
    /// Owner → host: close the tabs showing a website's shield (the delegate said `.close`).
    public static let shieldClose = PushKind<WebShieldSite>("web.shield-close")
}
