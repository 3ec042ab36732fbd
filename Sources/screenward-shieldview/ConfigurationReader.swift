import Foundation
import ManagedSettingsUI

/// Decodes a ShieldConfiguration, saying where the JSON is wrong.
enum ConfigurationReader {
    struct Unreadable: Error, CustomStringConvertible {
        var description: String
    }

    static func decode(_ data: Data, source: String) throws -> ShieldConfiguration {
        do {
            return try JSONDecoder().decode(ShieldConfiguration.self, from: data)
        } catch let error as DecodingError {
            throw Unreadable(description: "\(source) is not a shield configuration: \(explain(error))")
        }
    }

    private static func explain(_ error: DecodingError) -> String {
        func at(_ path: [any CodingKey]) -> String {
            path.isEmpty ? "" : " at \(path.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: "."))"
        }
        switch error {
        case .dataCorrupted(let context):
            let underlying = context.underlyingError.map { " (\($0.localizedDescription))" } ?? ""
            return "\(context.debugDescription)\(underlying)\(at(context.codingPath))"
        case .keyNotFound(let key, let context):
            return "missing '\(key.stringValue)'\(at(context.codingPath))"
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            return "expected \(type)\(at(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}
