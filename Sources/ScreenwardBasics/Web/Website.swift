import Foundation

/// A website as Screenward counts, limits and shields it: its registrable domain
/// (`youtube.com`), and the host the page was on (`m.youtube.com`), both in ASCII.
public struct Website: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The registrable domain, or the host itself when it is an address or a public suffix.
    public var domain: String
    public var host: String

    public init(domain: String, host: String) {
        self.domain = domain
        self.host = host
    }

    /// The domain as a person reads it (Unicode for an internationalised name).
    public var readableDomain: String { HostName.readable(domain) }
    public var description: String {
        host == domain ? readableDomain : "\(readableDomain) (\(HostName.readable(host)))"
    }
}

/// Turns what a browser reports (a page's URL) and what a person types (`youtube.com`,
/// `https://www.Bücher.de/`) into websites, by the Public Suffix List.
public struct WebAddresses: Sendable {
    public let suffixes: PublicSuffixList

    public init(suffixes: PublicSuffixList) {
        self.suffixes = suffixes
    }

    /// Why a URL is no website.
    public enum Rejection: Error, Equatable, CustomStringConvertible {
        /// A page of the browser's own, a file, inline data: `about:`, `file:`, `data:`,
        /// `chrome:`, an extension's page. Time there is the browser's, not a website's.
        case notAWebPage(scheme: String)
        /// Not a URL, or its host is no name a website can have.
        case malformed(String)

        public var description: String {
            switch self {
            case .notAWebPage(let scheme): "a \(scheme): page is no website"
            case .malformed(let why): why
            }
        }
    }

    /// The longest URL looked at: a host is found in its first characters, and a browser's
    /// URL can be megabytes of `data:`.
    package static let maximumURLLength = 8192

    /// The website a page is on: `http` and `https` pages only. The port and everything
    /// after the host are left out: `http://example.com:8080/a` is `example.com`.
    public func website(forURL url: String) throws(Rejection) -> Website {
        guard let colon = url.utf8.prefix(64).firstIndex(of: UInt8(ascii: ":")) else {
            throw .malformed("not a URL: \(Self.excerpt(url))")
        }
        let scheme = String(url[..<colon]).lowercased()
        guard
            scheme.unicodeScalars.allSatisfy({
                $0.isASCII && ($0.properties.isAlphabetic || $0 == "-" || $0 == "+" || $0 == ".")
            }), !scheme.isEmpty
        else {
            throw .malformed("not a URL: \(Self.excerpt(url))")
        }
        guard scheme == "http" || scheme == "https" else { throw .notAWebPage(scheme: scheme) }
        guard url.utf8.count <= Self.maximumURLLength else {
            throw .malformed("a URL of more than \(Self.maximumURLLength) bytes")
        }
        let rest = url[url.index(after: colon)...]
        guard rest.hasPrefix("//") else { throw .malformed("an \(scheme) URL without a host: \(Self.excerpt(url))") }
        let authority = rest.dropFirst(2).prefix { $0 != "/" && $0 != "?" && $0 != "#" && $0 != "\\" }
        let hostAndPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? authority
        return try website(forHostAndPort: String(hostAndPort), in: url)
    }

    /// The website a person names: a domain or host (`youtube.com`, `www.youtube.com`), or
    /// a URL. What they get is the registrable domain: `www.youtube.com` limits `youtube.com`.
    public func website(named name: String) throws(Rejection) -> Website {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        if trimmed.contains("://") { return try website(forURL: trimmed) }
        guard !trimmed.contains("/"), !trimmed.contains("@") else {
            throw .malformed("not a website's name: \(Self.excerpt(name))")
        }
        return try website(forHostAndPort: trimmed, in: name)
    }

    private func website(forHostAndPort hostAndPort: String, in url: String) throws(Rejection) -> Website {
        if hostAndPort.hasPrefix("[") {
            // An IPv6 address: it is its own website.
            guard let end = hostAndPort.firstIndex(of: "]") else {
                throw .malformed("an unclosed IPv6 address: \(Self.excerpt(url))")
            }
            let address = hostAndPort[hostAndPort.index(after: hostAndPort.startIndex)..<end].lowercased()
            guard !address.isEmpty, address.count <= 45, address.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." })
            else {
                throw .malformed("not an IPv6 address: \(Self.excerpt(url))")
            }
            return Website(domain: "[\(address)]", host: "[\(address)]")
        }
        var host = Substring(hostAndPort)
        if let colon = host.lastIndex(of: ":") {
            guard host[host.index(after: colon)...].allSatisfy(\.isNumber) else {
                throw .malformed("not a port: \(Self.excerpt(url))")
            }
            host = host[..<colon]
        }
        let decoded = host.removingPercentEncoding ?? String(host)
        guard let ascii = HostName.ascii(decoded) else { throw .malformed("not a host name: \(Self.excerpt(decoded))") }
        if Self.isIPv4(ascii) { return Website(domain: ascii, host: ascii) }
        guard ascii.contains(where: { $0.isLetter }) else {
            throw .malformed("not a host name: \(Self.excerpt(ascii))")
        }
        return Website(domain: suffixes.registrableDomain(of: ascii) ?? ascii, host: ascii)
    }

    static func isIPv4(_ host: String) -> Bool {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isNumber) && Int($0)! <= 255 }
    }

    /// A piece of hostile input fit for a log line.
    package static func excerpt(_ text: String, limit: Int = 80) -> String {
        let cut = text.prefix(limit).map {
            $0.isASCII && !$0.isNewline && $0 != "\u{7f}" && ($0.asciiValue ?? 0) >= 32 ? String($0) : "?"
        }.joined()
        return text.count > limit ? cut + "…" : cut
    }
}
