import Foundation
import ManagedSettingsUI
import ScreenwardCore

/// Decodes a ShieldConfiguration, saying where the JSON is wrong.
enum ConfigurationReader {
    struct Unreadable: Error, CustomStringConvertible {
        var description: String
    }

    static func decode(_ data: Data, source: String) throws -> ShieldConfiguration {
        do {
            return try JSONDecoder().decode(ShieldConfiguration.self, from: data)
        } catch let error as DecodingError {
            throw Unreadable(description: "\(source) is not a shield configuration: \(error.readableDescription)")
        }
    }
}
