import Foundation
import ScreenwardBasics

/// A message from Screenward's browser extension (data/web-extension/background.js), as
/// `screenward-web-host` reads it: JSON with a `kind`.
///
/// - `hello`: the extension started (its version).
/// - `windows`: the active tab of each window and the focused window, at each change.
///
/// Anything else, or a message that breaks the bounds, is refused with a reason for the
/// host's log; the host then drops it and goes on.
public enum ExtensionMessage: Equatable, Sendable {
    case hello(version: String)
    /// A shield page was shown, or one of its buttons pressed.
    case shield(WebShieldEvent)
    /// Something went wrong in the extension (a line for the host's log).
    case problem(String)
    case windows(focused: Int?, windows: [BrowserWindowsReport.Window])

    public struct Refusal: Error, Equatable, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    private struct Wire: Decodable {
        var kind: String
        var extension_: String?
        var text: String?
        var event: String?
        var site: String?
        var focused: Int?
        var windows: [WireWindow]?
        enum CodingKeys: String, CodingKey {
            case kind, focused, windows, text, event, site
            case extension_ = "extension"
        }
    }

    private struct WireWindow: Decodable {
        var id: Int
        var incognito: Bool?
        var tab: WireTab?
    }

    private struct WireTab: Decodable {
        var url: String
        var title: String
    }

    public static func decode(_ data: Data) throws(Refusal) -> ExtensionMessage {
        let wire: Wire
        do {
            wire = try JSONDecoder().decode(Wire.self, from: data)
        } catch {
            throw Refusal("not a message of Screenward's extension (\(Self.reason(error)))")
        }
        switch wire.kind {
        case "hello":
            return .hello(version: String((wire.extension_ ?? "?").prefix(40)))
        case "shield":
            let kinds: [String: WebShieldEvent.Kind] = [
                "shown": .shown, "primary": .primaryButtonPressed, "secondary": .secondaryButtonPressed,
            ]
            guard let event = wire.event.flatMap({ kinds[$0] }) else {
                throw Refusal("a shield message without a known event")
            }
            guard let site = wire.site, !site.isEmpty, site.utf8.count <= HostName.maximumLength + 2 else {
                throw Refusal("a shield message without a website")
            }
            return .shield(WebShieldEvent(kind: event, site: site))
        case "problem":
            return .problem(WebAddresses.excerpt(wire.text ?? "?", limit: 300))
        case "windows":
            guard let windows = wire.windows else { throw Refusal("a windows message without windows") }
            guard windows.count <= BrowserWindowsReport.maximumWindows else {
                throw Refusal(
                    "a windows message with \(windows.count) windows (at most \(BrowserWindowsReport.maximumWindows))")
            }
            var seen: Set<Int> = []
            var result: [BrowserWindowsReport.Window] = []
            for window in windows {
                guard seen.insert(window.id).inserted else { throw Refusal("window \(window.id) named twice") }
                if let tab = window.tab {
                    guard tab.title.count <= BrowserWindowsReport.maximumTitleLength else {
                        throw Refusal(
                            """
                            a tab title of \(tab.title.count) characters (at most \
                            \(BrowserWindowsReport.maximumTitleLength))
                            """
                        )
                    }
                    // A data: URL can be megabytes: only its scheme matters, for it is no website.
                    let url = tab.url.utf8.count > WebAddresses.maximumURLLength ? String(tab.url.prefix(64)) : tab.url
                    result.append(
                        .init(
                            id: window.id, incognito: window.incognito ?? false, tab: .init(url: url, title: tab.title))
                    )
                } else {
                    result.append(.init(id: window.id, incognito: window.incognito ?? false, tab: nil))
                }
            }
            let focused = wire.focused.flatMap { $0 < 0 ? nil : $0 }
            return .windows(focused: focused, windows: result)
        default:
            throw Refusal("a message of unknown kind \(WebAddresses.excerpt(wire.kind))")
        }
    }

    /// The message that tells the extension what to shield: `{"kind": "shields", "domains":
    /// [...], "allExcept": [...] or null, "filtered": [...], "filteredAllExcept": [...] or null,
    /// "addresses": true or false}`.
    public static func encodeShields(_ shields: WebShields) throws -> Data {
        struct Shields: Encodable {
            var kind = "shields"
            var domains: [String]
            var allExcept: [String]?
            var filtered: [String]
            var filteredAllExcept: [String]?
            var addresses: Bool
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(kind, forKey: .kind)
                try container.encode(domains, forKey: .domains)
                try container.encode(allExcept, forKey: .allExcept)  // null, not absent
                try container.encode(filtered, forKey: .filtered)
                try container.encode(filteredAllExcept, forKey: .filteredAllExcept)
                try container.encode(addresses, forKey: .addresses)
            }
            enum CodingKeys: String, CodingKey { case kind, domains, allExcept, filtered, filteredAllExcept, addresses }
        }
        return try JSONEncoder().encode(
            Shields(
                domains: shields.domains, allExcept: shields.allExcept, filtered: shields.filter.blocked,
                filteredAllExcept: shields.filter.allExcept, addresses: shields.addresses))
    }

    /// A message to the extension: `body`'s fields with `"kind": kind`.
    public static func encode(kind: String, _ body: some Encodable) throws -> Data {
        guard var object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(body)) as? [String: Any] else {
            throw Refusal("\(kind) is not an object")
        }
        object["kind"] = kind
        return try JSONSerialization.data(withJSONObject: object)
    }

    private static func reason(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted: "not JSON"
        case DecodingError.keyNotFound(let key, _): "no \(key.stringValue)"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            """
            \(context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")) \
            has the wrong type
            """
        default: "unreadable"
        }
    }
}
