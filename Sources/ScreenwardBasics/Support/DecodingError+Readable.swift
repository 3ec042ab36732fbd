extension DecodingError {
    /// What went wrong and where, for a person fixing a JSON file: "missing 'look'",
    /// "expected String at texts.title.en: …".
    public var readableDescription: String {
        func at(_ path: [any CodingKey]) -> String {
            path.isEmpty
                ? "" : " at \(path.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: "."))"
        }
        switch self {
        case .dataCorrupted(let context):
            let underlying = context.underlyingError.map { " (\($0.localizedDescription))" } ?? ""
            return "\(context.debugDescription)\(underlying)\(at(context.codingPath))"
        case .keyNotFound(let key, let context):
            return "missing '\(key.stringValue)'\(at(context.codingPath))"
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            return "expected \(type)\(at(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "\(self)"
        }
    }
}
