import CX11

/// Reading window properties defensively: any client can set any bytes, of any
/// length and any type, and the window can disappear while we ask.
extension XConnection {
    /// The raw value of a property, at most `maxBytes` long (the server truncates),
    /// or nil when it is missing or the window is gone.
    func propertyBytes(_ window: Window, _ property: AtomName, maxBytes: Int = 4096) -> (
        type: Atom, format: Int32, bytes: [UInt8]
    )? {
        var actualType: Atom = 0
        var actualFormat: Int32 = 0
        var itemCount: UInt = 0
        var bytesAfter: UInt = 0
        var data: UnsafeMutablePointer<UInt8>?
        let status = XGetWindowProperty(
            display, window, atom(property), 0, (maxBytes + 3) / 4, 0, Atom(AnyPropertyType),
            &actualType, &actualFormat, &itemCount, &bytesAfter, &data)
        guard status == Success, let data else { return nil }
        defer { XFree(data) }
        guard actualType != 0 else { return nil }
        // Format-32 items arrive as C longs, format-16 as shorts.
        let itemSize: Int
        switch actualFormat {
        case 8: itemSize = 1
        case 16: itemSize = MemoryLayout<CShort>.size
        case 32: itemSize = MemoryLayout<CLong>.size
        default: return nil
        }
        let byteCount = min(Int(itemCount) * itemSize, maxBytes * (itemSize == 1 ? 1 : itemSize))
        return (actualType, actualFormat, Array(UnsafeBufferPointer(start: data, count: byteCount)))
    }

    /// A list of 32-bit values (WINDOW, CARDINAL, ATOM properties).
    package func propertyValues(_ window: Window, _ property: AtomName, maxCount: Int = 64) -> [UInt]? {
        guard let value = propertyBytes(window, property, maxBytes: maxCount * 4), value.format == 32 else {
            return nil
        }
        return value.bytes.withUnsafeBytes { raw in
            Array(raw.bindMemory(to: CUnsignedLong.self)).map { UInt($0) }
        }
    }

    package func propertyWindow(_ window: Window, _ property: AtomName) -> Window? {
        guard let value = propertyValues(window, property, maxCount: 1)?.first, value != 0 else { return nil }
        return Window(value)
    }

    /// A text property, decoded as UTF-8 (invalid bytes replaced) unless it is a
    /// Latin-1 `STRING`, cut at `maxCharacters`; NUL-separated parts are returned apart.
    package func propertyStrings(_ window: Window, _ property: AtomName, maxCharacters: Int = 512) -> [String]? {
        guard let value = propertyBytes(window, property, maxBytes: maxCharacters * 4), value.format == 8 else {
            return nil
        }
        let isLatin1 = value.type == Atom(XA_STRING) && String(validating: value.bytes, as: UTF8.self) == nil
        return value.bytes.split(separator: 0, omittingEmptySubsequences: false).map { part in
            let text =
                isLatin1
                ? String(String.UnicodeScalarView(part.map { Unicode.Scalar($0) }))
                : String(decoding: part, as: UTF8.self)
            return WindowText.sanitize(text, maxCharacters: maxCharacters)
        }
    }

    package func propertyString(_ window: Window, _ property: AtomName, maxCharacters: Int = 512) -> String? {
        guard let first = propertyStrings(window, property, maxCharacters: maxCharacters)?.first, !first.isEmpty else {
            return nil
        }
        return first
    }
}

enum WindowText {
    /// Removes control characters (a title with escape sequences must not reach a
    /// terminal as-is) and bounds the length.
    static func sanitize(_ text: String, maxCharacters: Int) -> String {
        let cleaned = String(
            String.UnicodeScalarView(text.unicodeScalars.filter { $0.properties.generalCategory != .control }))
        return cleaned.count > maxCharacters ? String(cleaned.prefix(maxCharacters)) : cleaned
    }
}
