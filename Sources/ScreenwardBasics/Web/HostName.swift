import Foundation

/// Host names as Screenward keeps them: ASCII, lower case, no trailing dot, each label
/// Punycode when it is not ASCII, and only what a registered name can hold.
public enum HostName {
    /// The longest host name DNS can carry, and the longest label.
    package static let maximumLength = 253
    static let maximumLabelLength = 63

    /// The ASCII form of a host name written by a browser or a person (`Bücher.DE.` →
    /// `xn--bcher-kva.de`); nil when it is not a name a website can have.
    public static func ascii(_ name: String) -> String? {
        var name = name.precomposedStringWithCanonicalMapping.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        guard !name.isEmpty, name.utf8.count <= maximumLength * 4 else { return nil }
        var labels: [String] = []
        for label in name.split(separator: ".", omittingEmptySubsequences: false) {
            guard !label.isEmpty, let ascii = Punycode.encode(label: String(label)) else { return nil }
            guard ascii.utf8.count <= maximumLabelLength,
                ascii.unicodeScalars.allSatisfy({
                    ($0 >= "a" && $0 <= "z") || ($0 >= "0" && $0 <= "9") || $0 == "-" || $0 == "_"
                }),
                !ascii.hasPrefix("-"), !ascii.hasSuffix("-")
            else { return nil }
            // A label written `xn--` must be Punycode that decodes: anything else is a forgery.
            if ascii.hasPrefix(Punycode.prefix), Punycode.decode(label: ascii) == nil { return nil }
            labels.append(ascii)
        }
        let joined = labels.joined(separator: ".")
        return joined.utf8.count <= maximumLength ? joined : nil
    }

    /// How a person reads an ASCII host name: each Punycode label in Unicode.
    public static func readable(_ ascii: String) -> String {
        ascii.split(separator: ".", omittingEmptySubsequences: false)
            .map { Punycode.decode(label: String($0)) ?? String($0) }
            .joined(separator: ".")
    }
}
