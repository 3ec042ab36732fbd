import Foundation

/// The Public Suffix List: the parts of host names under which anyone may register a name
/// (`com`, `co.uk`, `github.io`), so that a website is its *registrable domain*, the public
/// suffix and one label more: `www.youtube.com` and `m.youtube.com` are both `youtube.com`,
/// `news.bbc.co.uk` is `bbc.co.uk`. Debian ships it as the `publicsuffix` package, kept up to
/// date with the distribution; Screenward reads that file and ships no copy of its own.
///
/// Rules are kept in ASCII (Punycode), the form browsers give host names in. Both sections of
/// the list count, as they do for browsers: a site on `github.io` is its own website.
public struct PublicSuffixList: Sendable {
    public static let debianPath = "/usr/share/publicsuffix/public_suffix_list.dat"

    private var rules: Set<String> = []
    /// `*.ck`: every name one label under `ck` is a suffix. Kept as `ck`.
    private var wildcards: Set<String> = []
    /// `!www.ck`: not a suffix although a wildcard says so. Kept as `www.ck`.
    private var exceptions: Set<String> = []

    public var ruleCount: Int { rules.count + wildcards.count + exceptions.count }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Parses the list's text (one rule per line, `//` comments, UTF-8).
    public init(contents: String) throws {
        for line in contents.split(whereSeparator: \.isNewline) {
            // A rule is the line's first word; the rest of the line is ignored.
            guard let word = line.split(whereSeparator: \.isWhitespace).first, !word.hasPrefix("//") else { continue }
            var rule = String(word).lowercased()
            var kind = 0
            if rule.hasPrefix("!") {
                rule.removeFirst()
                kind = 1
            } else if rule.hasPrefix("*.") {
                rule.removeFirst(2)
                kind = 2
            }
            guard let ascii = HostName.ascii(rule) else { continue }  // a rule no host can match
            switch kind {
            case 1: exceptions.insert(ascii)
            case 2: wildcards.insert(ascii)
            default: rules.insert(ascii)
            }
        }
        guard !rules.isEmpty else {
            throw Failure(description: "the Public Suffix List holds no rules: is it the list?")
        }
    }

    /// Reads the list Debian installs (or another copy of it).
    public static func load(from path: String = debianPath) throws -> PublicSuffixList {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw Failure(
                description:
                    """
                    the Public Suffix List cannot be read at \(path) (Debian's publicsuffix package installs it): \
                    \(error.localizedDescription)
                    """
            )
        }
        do {
            return try PublicSuffixList(contents: text)
        } catch let failure as Failure {
            throw Failure(description: "\(path): \(failure.description)")
        }
    }

    /// The public suffix of a host in ASCII, lower case (`co.uk` for `news.bbc.co.uk`). A host
    /// no rule matches has its last label for a suffix (the list's default rule, `*`).
    public func publicSuffix(of host: String) -> String {
        let labels = host.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        for start in labels.indices {
            let candidate = labels[start...].joined(separator: ".")
            if exceptions.contains(candidate) { return labels[(start + 1)...].joined(separator: ".") }
            if rules.contains(candidate) { return candidate }
            if start + 1 < labels.count, wildcards.contains(labels[(start + 1)...].joined(separator: ".")) {
                return candidate
            }
        }
        return labels.last ?? host
    }

    /// The registrable domain of a host in ASCII, lower case; nil when the host is itself a
    /// public suffix (`co.uk`, `github.io`), which no one can register.
    public func registrableDomain(of host: String) -> String? {
        let suffix = publicSuffix(of: host)
        guard host.count > suffix.count, host.hasSuffix("." + suffix) else { return nil }
        let rest = host.dropLast(suffix.count + 1)
        let label = rest.split(separator: ".").last.map(String.init) ?? String(rest)
        return label + "." + suffix
    }
}
