import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenTimePolicy
import ScreenwardBasics
import ScreenwardIPC

/// What `screenward-web-host` tells the state owner, relaying its browser's extension:
/// the active tab of each window and which window the browser has focused.
public struct BrowserWindowsReport: Sendable, Hashable, Codable {
    public struct Tab: Sendable, Hashable, Codable {
        public var url: String
        public var title: String
        public init(url: String, title: String) {
            self.url = url
            self.title = title
        }
    }

    public struct Window: Sendable, Hashable, Codable {
        public var id: Int
        public var incognito: Bool
        public var tab: Tab?
        public init(id: Int, incognito: Bool, tab: Tab?) {
            self.id = id
            self.incognito = incognito
            self.tab = tab
        }
    }

    /// The browser's main process: the host's parent, and the process that owns the
    /// browser's X windows.
    public var browserPID: Int32
    /// The window the browser says has the focus (nil: none of its windows).
    public var focusedWindow: Int?
    public var windows: [Window]

    public init(browserPID: Int32, focusedWindow: Int?, windows: [Window]) {
        self.browserPID = browserPID
        self.focusedWindow = focusedWindow
        self.windows = windows
    }

    /// Bounds on a report: a browser with more is not one a person uses.
    public static let maximumWindows = 512
    public static let maximumTitleLength = 1024
}

public enum WebHostMethods {
    /// Host → owner, at each change; the reply is empty.
    public static let windows = ServiceMethod<BrowserWindowsReport, Empty>("web.windows")
}

/// The owner's view of every browser's tabs, one report per connected host, and the website
/// a focused X window shows.
///
/// The X window is matched to the browser's window by its process (the browser's main
/// process owns its windows) and its title (a browser titles its window after the active
/// tab: `Page — Mozilla Firefox`, `Page - Chromium`): of the browser's windows whose active
/// tab's title begins the X window's, the one the browser says is focused is preferred. A
/// window no report matches shows no website: its time is the browser's alone.
public struct BrowserTabs: Sendable {
    private var reports: [UInt64: BrowserWindowsReport] = [:]
    public let addresses: WebAddresses

    public init(addresses: WebAddresses) {
        self.addresses = addresses
    }

    public var isEmpty: Bool { reports.isEmpty }

    /// The latest report from the host on connection `connection`.
    public mutating func update(_ report: BrowserWindowsReport, from connection: UInt64) {
        reports[connection] = report
    }

    /// The host on `connection` is gone (its browser ended).
    public mutating func forget(connection: UInt64) {
        reports[connection] = nil
    }

    /// Every host's latest report, in the order the hosts connected (the daemon passes them
    /// on to a managed session's agent, which sees the windows).
    public var latestReports: [BrowserWindowsReport] {
        reports.sorted { $0.key < $1.key }.map(\.value)
    }

    /// Takes `reports` for every host's latest (as `latestReports` gave them elsewhere).
    public mutating func replace(with reports: [BrowserWindowsReport]) {
        self.reports = Dictionary(uniqueKeysWithValues: reports.enumerated().map { (UInt64($0.offset), $0.element) })
    }

    /// What a focused browser window shows, for counting.
    public enum Showing: Equatable, Sendable {
        /// A website.
        case website(Website)
        /// Screenward's shield (or filter) page: time in front of it counts for nothing, as in
        /// front of a window's shield.
        case shield
        /// Anything else (a page of the browser's own, a window no report explains).
        case other
    }

    /// What the X window owned by `pid` and titled `title` shows.
    public func showing(windowPID pid: Int32?, title: String?) -> Showing {
        guard let tab = tab(windowPID: pid, title: title) else { return .other }
        if Self.isShieldPage(tab.url) { return .shield }
        return (try? addresses.website(forURL: tab.url)).map(Showing.website) ?? .other
    }

    /// What counts while a window of `app`, owned by `pid` and titled `title`, has the focus:
    /// the application and the website it shows; nothing in front of a shield page.
    public func counted(_ app: AppIdentity, windowPID pid: Int32?, title: String?) -> (
        app: AppIdentity?, site: Website?
    ) {
        switch showing(windowPID: pid, title: title) {
        case .website(let site): (app, site)
        case .shield: (nil, nil)
        case .other: (app, nil)
        }
    }

    /// Screenward's extension's shield page (`chrome-extension://ID/shield.html?site=…`,
    /// `moz-extension://UUID/shield.html?site=…`).
    static func isShieldPage(_ url: String) -> Bool {
        (url.hasPrefix("chrome-extension://") || url.hasPrefix("moz-extension://"))
            && url.contains("/shield.html?site=")
    }

    /// The website the X window owned by `pid` and titled `title` shows, if any.
    public func site(windowPID pid: Int32?, title: String?) -> Website? {
        if case .website(let website) = showing(windowPID: pid, title: title) { return website }
        return nil
    }

    private func tab(windowPID pid: Int32?, title: String?) -> BrowserWindowsReport.Tab? {
        guard let pid, let title else { return nil }
        var best: (tab: BrowserWindowsReport.Tab, focused: Bool)?
        for report in reports.values where report.browserPID == pid {
            for window in report.windows {
                guard let tab = window.tab, !tab.title.isEmpty, title.hasPrefix(tab.title) else { continue }
                let focused = window.id == report.focusedWindow
                if best == nil || (focused && !(best?.focused ?? false))
                    || (focused == best?.focused && tab.title.count > (best?.tab.title.count ?? 0))
                {
                    best = (tab, focused)
                }
            }
        }
        return best?.tab
    }
}

/// What the browsers' extension must shield now: the owner pushes it to every host (and the
/// host to its extension) at the host's first report and after each store change.
public struct WebShields: Sendable, Hashable, Codable {
    /// Websites shielded, by the name a store's token was issued for (`youtube.com` covers
    /// `www.youtube.com` and `m.youtube.com`), sorted.
    public var domains: [String]
    /// Set when every website is shielded (`webDomainCategories = .all(except:)`): the
    /// websites that are not.
    public var allExcept: [String]?
    /// What the stores' web content filters block (`webContent.blockedByFilter`).
    public var filter: WebFilter.Combined
    /// Whether pages at an address (an IP address, a name without a dot such as `localhost`)
    /// are shielded: another name for any website, the owner cannot tell them from one it
    /// limits, so in an account a guardian manages none is a website to use.
    public var addresses: Bool

    public init(
        domains: [String], allExcept: [String]? = nil, filter: WebFilter.Combined = .init(), addresses: Bool = false
    ) {
        self.domains = domains
        self.allExcept = allExcept
        self.filter = filter
        self.addresses = addresses
    }

    /// A website the stores may name: by a token issued for it, or by its category.
    public struct Candidate: Sendable, Hashable {
        public var name: String
        public var token: WebDomainToken
        public var categories: Set<ActivityCategoryToken>
        public init(name: String, token: WebDomainToken, categories: Set<ActivityCategoryToken> = []) {
            self.name = name
            self.token = token
            self.categories = categories
        }
    }

    /// From the union of the stores, over the websites they can name: those tokens were issued
    /// for, and those the category table puts in a category (a store shielding a category
    /// shields its websites).
    public init(shields: EffectiveShields, candidates: [Candidate], addresses: Bool = false) {
        self.addresses = addresses
        // A token no one holds, in no category: shielded only by a policy for every website.
        let everything = !shields.reasons(
            forWebDomain: WebDomainToken(opaqueValue: "screenward-no-website"), categories: []
        ).isEmpty
        var shielded: Set<String> = []
        var spared: Set<String> = []
        for candidate in candidates {
            if shields.reasons(forWebDomain: candidate.token, categories: candidate.categories).isEmpty {
                spared.insert(candidate.name)
            } else {
                shielded.insert(candidate.name)
            }
        }
        domains = everything ? [] : shielded.sorted()
        allExcept = everything ? spared.subtracting(shielded).sorted() : nil
        filter = WebFilter.combine(shields.stores.compactMap(\.webContent.blockedByFilter))
    }
}

extension WebHostMethods {
    /// Owner → host: what to shield now.
    public static let shields = PushKind<WebShields>("web.shields")
}
