/// How a shield blurs what lies under it: Apple's API takes a `UIBlurEffect.Style`;
/// these are its cases with the same names, so `backgroundBlurStyle: .systemThickMaterial`
/// reads as on iOS.
///
/// Every iOS style is here: the classic ones (`extraLight`, `light`, `dark`, `regular`,
/// `prominent`) and the five materials (`systemUltraThinMaterial`, `systemThinMaterial`,
/// `systemMaterial`, `systemThickMaterial`, `systemChromeMaterial`), each also in a
/// `…Light` and a `…Dark` variant. Left out: `extraDark`, which exists on tvOS only.
///
/// The styles without `Light`/`Dark` in their name (`regular`, `prominent` and the plain
/// materials) follow the desktop's light or dark preference, as on iOS they follow the
/// interface style. `blurRadius` and `tint(dark:)` say how the shield window draws a style.
public enum ShieldBlurStyle: String, Hashable, Codable, Sendable, CaseIterable {
    case extraLight
    case light
    case dark
    case regular
    case prominent

    case systemUltraThinMaterial
    case systemThinMaterial
    case systemMaterial
    case systemThickMaterial
    case systemChromeMaterial

    case systemUltraThinMaterialLight
    case systemThinMaterialLight
    case systemMaterialLight
    case systemThickMaterialLight
    case systemChromeMaterialLight

    case systemUltraThinMaterialDark
    case systemThinMaterialDark
    case systemMaterialDark
    case systemThickMaterialDark
    case systemChromeMaterialDark

    /// Whether the style is light, dark, or follows the desktop.
    public enum Appearance: String, Hashable, Codable, Sendable {
        case light, dark, automatic
    }

    public var appearance: Appearance {
        switch self {
        case .extraLight, .light: .light
        case .dark: .dark
        case .regular, .prominent: .automatic
        case .systemUltraThinMaterial, .systemThinMaterial, .systemMaterial, .systemThickMaterial,
            .systemChromeMaterial:
            .automatic
        case .systemUltraThinMaterialLight, .systemThinMaterialLight, .systemMaterialLight, .systemThickMaterialLight,
            .systemChromeMaterialLight:
            .light
        case .systemUltraThinMaterialDark, .systemThinMaterialDark, .systemMaterialDark, .systemThickMaterialDark,
            .systemChromeMaterialDark:
            .dark
        }
    }

    /// How thick the material is, 0 (barely there) … 1 (nearly opaque).
    public var thickness: Double {
        switch self {
        case .systemUltraThinMaterial, .systemUltraThinMaterialLight, .systemUltraThinMaterialDark: 0.2
        case .systemThinMaterial, .systemThinMaterialLight, .systemThinMaterialDark: 0.4
        case .light, .dark, .regular: 0.5
        case .systemMaterial, .systemMaterialLight, .systemMaterialDark: 0.6
        case .extraLight, .prominent: 0.7
        case .systemThickMaterial, .systemThickMaterialLight, .systemThickMaterialDark: 0.8
        case .systemChromeMaterial, .systemChromeMaterialLight, .systemChromeMaterialDark: 0.9
        }
    }

    /// The Gaussian blur radius, in pixels, for the captured image under the shield.
    public var blurRadius: Double {
        12 + 18 * thickness
    }

    /// The color laid over the blurred image; `dark` decides the `automatic` styles.
    public func tint(dark: Bool) -> ShieldColor {
        let isDark =
            switch appearance {
            case .light: false
            case .dark: true
            case .automatic: dark
            }
        let alpha = 0.25 + 0.65 * thickness
        return isDark
            ? ShieldColor(red: 0.11, green: 0.11, blue: 0.12, alpha: alpha)
            : ShieldColor(red: 0.97, green: 0.97, blue: 0.98, alpha: alpha)
    }
}
