/// Who an application is, as far as usage accounting is concerned.
///
/// The `key` is what tokens are derived from, so it must be stable: the desktop id
/// when a desktop entry matches, else the WM_CLASS class, else the executable.
public struct AppIdentity: Hashable, Sendable, Codable {
    public enum Key: Hashable, Sendable, Codable {
        /// A desktop entry's id, for example `firefox.desktop`.
        case desktopEntry(String)
        /// The WM_CLASS class of a window that no desktop entry claims.
        case windowClass(String)
        /// The executable's path, when the window has neither entry nor class.
        case executable(String)
    }

    public var key: Key
    /// A name a person recognises (the entry's Name, else the class or file name).
    public var displayName: String
    public var iconName: String?
    /// freedesktop.org categories from the desktop entry (`Game`, `Office`, …).
    public var categories: [String]

    public init(key: Key, displayName: String, iconName: String? = nil, categories: [String] = []) {
        self.key = key
        self.displayName = displayName
        self.iconName = iconName
        self.categories = categories
    }

    /// The id shown by `screenward usage --json`: the desktop id, `wmclass:<class>`
    /// or `exe:<path>`.
    public var publicID: String {
        switch key {
        case .desktopEntry(let id): id
        case .windowClass(let wmClass): "wmclass:\(wmClass)"
        case .executable(let path): "exe:\(path)"
        }
    }

    /// The identity a public id names (`firefox-esr.desktop`, `wmclass:Game`, `exe:/usr/bin/x`), as
    /// another computer's ledger sent it; `categories` are its desktop entry's, joined by `;`.
    /// Nil for what no identity has (an empty class, a relative path).
    public init?(publicID: String, categories: String = "") {
        let entryCategories = categories.split(separator: ";").map(String.init)
        if publicID.hasPrefix("wmclass:") {
            let wmClass = String(publicID.dropFirst("wmclass:".count))
            guard !wmClass.isEmpty else { return nil }
            self.init(key: .windowClass(wmClass), displayName: wmClass)
        } else if publicID.hasPrefix("exe:") {
            let path = String(publicID.dropFirst("exe:".count))
            guard path.hasPrefix("/") else { return nil }
            self.init(key: .executable(path), displayName: path.split(separator: "/").last.map(String.init) ?? path)
        } else {
            guard !publicID.isEmpty else { return nil }
            self.init(key: .desktopEntry(publicID), displayName: publicID, categories: entryCategories)
        }
    }

    /// The input of the token derivation; distinct kinds never collide.
    public var tokenInput: String {
        switch key {
        case .desktopEntry(let id): "desktop-entry\u{0}\(id)"
        case .windowClass(let wmClass): "window-class\u{0}\(wmClass)"
        case .executable(let path): "executable\u{0}\(path)"
        }
    }
}
