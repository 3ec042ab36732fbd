/// The icon a shield shows: Apple's API takes a `UIImage`; here it is an image file
/// or a name from the desktop's icon theme (`dialog-warning`, `firefox`).
///
/// Encoded as `{"file": "/path/to/image.png"}` or `{"iconName": "dialog-warning"}`.
public enum ShieldIcon: Hashable, Codable, Sendable {
    /// An image file (PNG, SVG, anything the desktop's image loader reads), by absolute path.
    case file(path: String)
    /// An icon of the freedesktop icon theme, by name.
    case themed(name: String)

    /// An image file, as `UIImage(contentsOfFile:)`.
    public init(contentsOfFile path: String) {
        self = .file(path: path)
    }

    /// An icon-theme icon, in the place of `UIImage(systemName:)`.
    public init(systemName: String) {
        self = .themed(name: systemName)
    }

    private enum CodingKeys: String, CodingKey { case file, iconName }

    public init(from decoder: any Decoder) throws {
        let keyed = try decoder.container(keyedBy: CodingKeys.self)
        if let path = try keyed.decodeIfPresent(String.self, forKey: .file) {
            self = .file(path: path)
        } else if let name = try keyed.decodeIfPresent(String.self, forKey: .iconName) {
            self = .themed(name: name)
        } else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "an icon needs \"file\" (a path) or \"iconName\" (an icon-theme name)"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var keyed = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .file(let path): try keyed.encode(path, forKey: .file)
        case .themed(let name): try keyed.encode(name, forKey: .iconName)
        }
    }
}
