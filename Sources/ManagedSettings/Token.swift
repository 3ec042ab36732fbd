/// An opaque reference to an application, category or web domain.
///
/// As in Apple's framework, a token names something without revealing it: its value
/// is a keyed hash of the item's identity under a secret that never leaves this
/// device, so only the local catalog can turn it back into a name.
public struct Token<Kind>: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The token's opaque text form (URL-safe base64). Stable across restarts.
    @_spi(Screenward) public let opaqueValue: String

    @_spi(Screenward) public init(opaqueValue: String) {
        self.opaqueValue = opaqueValue
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let value = try container.decode(String.self)
        guard Self.isWellFormed(value) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "not a Screenward token: \(value.prefix(64))")
        }
        opaqueValue = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(opaqueValue)
    }

    public var description: String { "Token(\(opaqueValue.prefix(8))…)" }

    static func isWellFormed(_ value: String) -> Bool {
        !value.isEmpty && value.count <= 128
            && value.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || $0 == "-" || $0 == "_")
            }
    }
}

public typealias ApplicationToken = Token<Application>
public typealias ActivityCategoryToken = Token<ActivityCategory>
public typealias WebDomainToken = Token<WebDomain>
