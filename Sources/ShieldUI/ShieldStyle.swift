import Foundation
import ManagedSettingsUI
import ScreenwardCore

/// The CSS that colors one shield window's widgets. Every value is formatted from
/// numbers (colors) or fixed here: no text from a configuration ever reaches the CSS.
struct ShieldStyle {
    /// The window's widget name: selectors are scoped to it, so several shield
    /// windows of one process (one provider each, on the screen) keep their own colors.
    let scope: String

    func css(for shield: ResolvedShield) -> String {
        let window = "#\(scope)"
        let primary = shield.primaryButtonBackgroundColor
        let primaryText = shield.primaryButtonLabel.color
        let secondaryText = shield.secondaryButtonLabel?.color ?? primary
        return """
            \(window) { background-color: transparent; background-image: none; }
            \(window) #shield-title { color: \(Self.rgba(shield.title.color)); font-size: 26px; font-weight: bold; }
            \(window) #shield-subtitle { color: \(Self.rgba(shield.subtitle.color)); font-size: 15px; }
            \(window) button {
                background-image: none; border: none; box-shadow: none; text-shadow: none; -gtk-icon-shadow: none;
                border-radius: 12px; padding: 10px 28px; font-size: 16px;
                /* Adwaita's height and focus ring corners: the shield looks the same without a theme. */
                min-height: 24px; -gtk-outline-radius: 3px;
                outline-offset: 3px; outline-width: 2px; outline-style: solid;
                transition: none; /* the theme fades colours over 200 ms: a redrawn shield shows its new look at once */
            }
            \(window) button label { text-shadow: none; }
            \(window) #shield-primary {
                background-color: \(Self.rgba(primary)); color: \(Self.rgba(primaryText)); font-weight: bold;
                min-width: 200px; outline-color: \(Self.rgba(primary.withAlphaComponent(0.5)));
            }
            \(window) #shield-primary label { color: \(Self.rgba(primaryText)); }
            \(window) #shield-primary:hover { background-color: \(Self.rgba(Self.mix(primary, with: .white, 0.12))); }
            \(window) #shield-primary:active { background-color: \(Self.rgba(Self.mix(primary, with: .black, 0.15))); }
            \(window) #shield-secondary {
                background-color: transparent; color: \(Self.rgba(secondaryText));
                min-width: 200px; outline-color: \(Self.rgba(secondaryText.withAlphaComponent(0.4)));
            }
            \(window) #shield-secondary label { color: \(Self.rgba(secondaryText)); }
            \(window) #shield-secondary:hover { \
            background-color: \(Self.rgba(secondaryText.withAlphaComponent(0.12))); }
            \(window) #shield-secondary:active { \
            background-color: \(Self.rgba(secondaryText.withAlphaComponent(0.2))); }
            """
    }

    /// `rgba(r, g, b, a)` with integer channels and an alpha of three decimals.
    static func rgba(_ color: ShieldColor) -> String {
        func channel(_ value: Double) -> Int { Int((value * 255).rounded()) }
        // String(format:) without a locale always writes a decimal point.
        return
            """
            rgba(\(channel(color.red)), \(channel(color.green)), \(channel(color.blue)), \
            \(String(format: "%.3f", color.alpha)))
            """
    }

    /// `color` moved `amount` (0…1) towards `other`, keeping its alpha.
    static func mix(_ color: ShieldColor, with other: ShieldColor, _ amount: Double) -> ShieldColor {
        ShieldColor(
            red: color.red + (other.red - color.red) * amount,
            green: color.green + (other.green - color.green) * amount,
            blue: color.blue + (other.blue - color.blue) * amount, alpha: color.alpha)
    }
}
