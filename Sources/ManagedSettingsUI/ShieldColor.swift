/// A color for a shield: Apple's API takes a `UIColor`; this is its portable stand-in.
///
/// Components are sRGB in 0...1 (values outside are clamped). Encoded as
/// `{"red": …, "green": …, "blue": …, "alpha": …}`; decoding also accepts a hex
/// string (`"#1C1C1E"`, `"#1C1C1ECC"`, `"#FFF"`), as the data files write colors.
public struct ShieldColor: Hashable, Codable, Sendable, CustomStringConvertible {
    public var red: Double
    public var green: Double
    public var blue: Double
    public var alpha: Double

    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        self.red = Self.clamp(red)
        self.green = Self.clamp(green)
        self.blue = Self.clamp(blue)
        self.alpha = Self.clamp(alpha)
    }

    /// A gray of `white` (0 black … 1 white), as `UIColor(white:alpha:)`.
    public init(white: Double, alpha: Double = 1) {
        self.init(red: white, green: white, blue: white, alpha: alpha)
    }

    /// `#RGB`, `#RGBA`, `#RRGGBB` or `#RRGGBBAA` (the `#` is optional, case does not matter);
    /// nil for anything else.
    public init?(hex: String) {
        var digits = Substring(hex.trimmingCharacters(in: .whitespaces))
        if digits.hasPrefix("#") { digits = digits.dropFirst() }
        guard [3, 4, 6, 8].contains(digits.count), digits.allSatisfy(\.isHexDigit) else { return nil }
        var values: [Double] = []
        if digits.count <= 4 {
            for digit in digits { values.append(Double(Int(String(digit), radix: 16)! * 17) / 255) }
        } else {
            var index = digits.startIndex
            while index < digits.endIndex {
                let next = digits.index(index, offsetBy: 2)
                values.append(Double(Int(digits[index..<next], radix: 16)!) / 255)
                index = next
            }
        }
        self.init(red: values[0], green: values[1], blue: values[2], alpha: values.count == 4 ? values[3] : 1)
    }

    /// `#RRGGBB`, or `#RRGGBBAA` when not opaque.
    public var hexString: String {
        func byte(_ value: Double) -> String {
            let text = String(Int((value * 255).rounded()), radix: 16, uppercase: true)
            return text.count == 1 ? "0" + text : text
        }
        return "#" + byte(red) + byte(green) + byte(blue) + (alpha < 1 ? byte(alpha) : "")
    }

    public var description: String { hexString }

    /// The same color with another alpha, as `UIColor.withAlphaComponent(_:)`.
    public func withAlphaComponent(_ alpha: Double) -> ShieldColor {
        ShieldColor(red: red, green: green, blue: blue, alpha: alpha)
    }

    // Named colors, after UIColor's.
    public static let black = ShieldColor(white: 0)
    public static let darkGray = ShieldColor(white: 1.0 / 3)
    public static let gray = ShieldColor(white: 0.5)
    public static let lightGray = ShieldColor(white: 2.0 / 3)
    public static let white = ShieldColor(white: 1)
    public static let clear = ShieldColor(white: 0, alpha: 0)
    public static let red = ShieldColor(red: 1, green: 0, blue: 0)
    public static let green = ShieldColor(red: 0, green: 1, blue: 0)
    public static let blue = ShieldColor(red: 0, green: 0, blue: 1)
    public static let yellow = ShieldColor(red: 1, green: 1, blue: 0)
    public static let orange = ShieldColor(red: 1, green: 0.5, blue: 0)
    public static let purple = ShieldColor(red: 0.5, green: 0, blue: 0.5)
    /// iOS's system colors (light appearance).
    public static let systemBlue = ShieldColor(hex: "#007AFF")!
    public static let systemGreen = ShieldColor(hex: "#34C759")!
    public static let systemRed = ShieldColor(hex: "#FF3B30")!
    public static let systemOrange = ShieldColor(hex: "#FF9500")!
    public static let systemIndigo = ShieldColor(hex: "#5856D6")!
    public static let label = ShieldColor(white: 0)
    public static let secondaryLabel = ShieldColor(red: 60.0 / 255, green: 60.0 / 255, blue: 67.0 / 255, alpha: 0.6)

    private enum CodingKeys: String, CodingKey { case red, green, blue, alpha }

    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), let text = try? single.decode(String.self) {
            guard let color = ShieldColor(hex: text) else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: decoder.codingPath,
                        debugDescription: "not a color: \"\(text)\" (expected #RRGGBB or #RRGGBBAA)"))
            }
            self = color
            return
        }
        let keyed = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            red: try keyed.decode(Double.self, forKey: .red), green: try keyed.decode(Double.self, forKey: .green),
            blue: try keyed.decode(Double.self, forKey: .blue),
            alpha: try keyed.decodeIfPresent(Double.self, forKey: .alpha) ?? 1)
    }

    public func encode(to encoder: any Encoder) throws {
        var keyed = encoder.container(keyedBy: CodingKeys.self)
        try keyed.encode(red, forKey: .red)
        try keyed.encode(green, forKey: .green)
        try keyed.encode(blue, forKey: .blue)
        try keyed.encode(alpha, forKey: .alpha)
    }

    private static func clamp(_ value: Double) -> Double {
        value.isNaN ? 0 : min(max(value, 0), 1)
    }
}
