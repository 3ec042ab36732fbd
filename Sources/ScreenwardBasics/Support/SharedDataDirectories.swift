/// The system's shared data folders, as the XDG Base Directory specification gives them:
/// desktop entries live in their `applications`, installed apps' manifests in their
/// `screenward/apps`.
public enum SharedDataDirectories {
    /// What an unset or empty `$XDG_DATA_DIRS` means.
    public static let standard = "/usr/local/share:/usr/share"

    /// The folders `$XDG_DATA_DIRS` names, in its order (absolute ones only: the
    /// specification says relative ones are ignored), or the standard ones.
    public static func from(_ env: [String: String]) -> [String] {
        (env["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? standard)
            .split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
    }
}
