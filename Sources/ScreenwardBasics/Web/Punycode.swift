/// Punycode (RFC 3492): how a label of an internationalised host name is written in ASCII
/// (`bücher` is `xn--bcher-kva` in a URL). Browsers hand the ASCII form; people and the Public
/// Suffix List write the Unicode one; the ledger keeps the ASCII form, one spelling per name.
enum Punycode {
    private static let base = 36, tMin = 1, tMax = 26, skew = 38, damp = 700, initialBias = 72, initialN = 128
    static let prefix = "xn--"

    /// The ASCII form of one label (unchanged when it is ASCII already); nil for a label
    /// too long to write.
    static func encode(label: String) -> String? {
        let scalars = Array(label.unicodeScalars)
        if scalars.allSatisfy(\.isASCII) { return label }
        var output = String(String.UnicodeScalarView(scalars.filter(\.isASCII)))
        let basicCount = output.unicodeScalars.count
        if basicCount > 0 { output.append("-") }
        var n = initialN
        var delta = 0
        var bias = initialBias
        var handled = basicCount
        while handled < scalars.count {
            guard let next = scalars.map({ Int($0.value) }).filter({ $0 >= n }).min() else { return nil }
            let (product, overflow) = (next - n).multipliedReportingOverflow(by: handled + 1)
            guard !overflow, delta <= Int(Int32.max) - product else { return nil }
            delta += product
            n = next
            for scalar in scalars {
                let code = Int(scalar.value)
                if code < n { delta += 1 }
                if code == n {
                    var q = delta
                    var k = base
                    while true {
                        let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                        if q < t { break }
                        output.append(digit(t + (q - t) % (base - t)))
                        q = (q - t) / (base - t)
                        k += base
                    }
                    output.append(digit(q))
                    bias = adapt(delta: delta, points: handled + 1, first: handled == basicCount)
                    delta = 0
                    handled += 1
                }
            }
            delta += 1
            n += 1
        }
        return prefix + output
    }

    /// The Unicode form of one label written `xn--…`; nil when it is not valid Punycode.
    /// A label without the prefix is returned as it is.
    static func decode(label: String) -> String? {
        guard label.hasPrefix(prefix) else { return label }
        let encoded = Array(label.dropFirst(prefix.count).unicodeScalars)
        guard encoded.allSatisfy(\.isASCII) else { return nil }
        var output: [Unicode.Scalar] = []
        var start = 0
        if let dash = encoded.lastIndex(of: "-") {
            output = Array(encoded[..<dash])
            start = dash + 1
        }
        var n = initialN
        var i = 0
        var bias = initialBias
        var position = start
        while position < encoded.count {
            let oldI = i
            var weight = 1
            var k = base
            while true {
                guard position < encoded.count, let value = digitValue(encoded[position]) else { return nil }
                position += 1
                let (product, overflow) = value.multipliedReportingOverflow(by: weight)
                guard !overflow, i <= Int(Int32.max) - product else { return nil }
                i += product
                let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                if value < t { break }
                guard weight <= Int(Int32.max) / (base - t) else { return nil }
                weight *= base - t
                k += base
            }
            bias = adapt(delta: i - oldI, points: output.count + 1, first: oldI == 0)
            n += i / (output.count + 1)
            i %= output.count + 1
            guard n <= 0x10FFFF, let scalar = Unicode.Scalar(UInt32(n)), !scalar.isASCII else { return nil }
            output.insert(scalar, at: i)
            i += 1
        }
        return String(String.UnicodeScalarView(output))
    }

    private static func adapt(delta: Int, points: Int, first: Bool) -> Int {
        var delta = first ? delta / damp : delta / 2
        delta += delta / points
        var k = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + (base - tMin + 1) * delta / (delta + skew)
    }

    private static func digit(_ value: Int) -> Character {
        Character(Unicode.Scalar(UInt8(value < 26 ? value + 97 : value + 22)))
    }

    private static func digitValue(_ scalar: Unicode.Scalar) -> Int? {
        switch scalar.value {
        case 48...57: Int(scalar.value) - 22
        case 65...90: Int(scalar.value) - 65
        case 97...122: Int(scalar.value) - 97
        default: nil
        }
    }
}
