import Foundation

/// One language's translations, read from a GNU gettext message catalog (`.mo`, what `msgfmt`
/// makes of a `po/` file): original → translation, a context as gettext writes it
/// (`context` U+0004 `original`). Read in plain Swift rather than through libc's gettext,
/// whose language is the process's: the daemon speaks to each managed user in theirs.
///
/// Plural forms are not read: Screenward's texts are written so that none needs one
/// (`{count} min`), and an entry with plurals is left out.
public struct MessageCatalog: Sendable, Equatable {
    public private(set) var messages: [String: String]

    public init(messages: [String: String] = [:]) {
        self.messages = messages
    }

    public struct Invalid: Error, CustomStringConvertible, Equatable {
        public var description: String
    }

    /// The translation of `original` in `context`, nil when the catalog has none.
    public func translation(of original: String, context: String? = nil) -> String? {
        messages[context.map { "\($0)\u{4}\(original)" } ?? original]
    }

    /// Reads a catalog; a file that is not one is refused with what is wrong (never a crash:
    /// every offset and length is checked against the file).
    public init(contentsOf url: URL) throws {
        let bytes: [UInt8]
        do {
            bytes = Array(try Data(contentsOf: url))
        } catch {
            throw Invalid(description: "cannot read the message catalog \(url.path): \(error.localizedDescription)")
        }
        try self.init(bytes: bytes, name: url.path)
    }

    public init(bytes: [UInt8], name: String = "the file") throws {
        func invalid(_ why: String) -> Invalid { Invalid(description: "\(name) is not a message catalog: \(why)") }
        guard bytes.count >= 28 else { throw invalid("it is \(bytes.count) bytes long") }
        // The magic number says the byte order the rest is in.
        let littleEndian: Bool
        switch (bytes[0], bytes[1], bytes[2], bytes[3]) {
        case (0xDE, 0x12, 0x04, 0x95): littleEndian = true
        case (0x95, 0x04, 0x12, 0xDE): littleEndian = false
        default: throw invalid("its first bytes are not gettext's magic number")
        }
        func word(_ offset: Int) throws -> Int {
            guard offset >= 0, offset + 4 <= bytes.count else { throw invalid("an offset points past its end") }
            let b = bytes[offset..<(offset + 4)].map(UInt32.init)
            return Int(
                littleEndian ? b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24 : b[3] | b[2] << 8 | b[1] << 16 | b[0] << 24)
        }
        let revision = try word(4)
        guard revision >> 16 <= 1 else { throw invalid("its revision \(revision >> 16) is not one gettext writes") }
        let count = try word(8)
        let originals = try word(12)
        let translations = try word(16)
        guard count <= bytes.count / 16 else { throw invalid("it claims \(count) messages") }
        func string(table: Int, index: Int) throws -> String {
            let length = try word(table + index * 8)
            let offset = try word(table + index * 8 + 4)
            guard offset + length <= bytes.count else { throw invalid("a message runs past its end") }
            guard let text = String(validating: bytes[offset..<(offset + length)], as: UTF8.self) else {
                throw invalid("a message is not UTF-8")
            }
            return text
        }
        var messages: [String: String] = [:]
        for index in 0..<count {
            let original = try string(table: originals, index: index)
            // The header (the empty original) and entries with plural forms are not texts to show.
            guard !original.isEmpty, !original.contains("\0") else { continue }
            let translation = try string(table: translations, index: index)
            guard !translation.isEmpty, !translation.contains("\0") else { continue }
            messages[original] = translation
        }
        self.messages = messages
    }
}
