import Foundation
import GtkBase
@_spi(Screenward) import ManagedSettings
import ManagedSettingsUI
import ScreenwardCore
import ShieldUI
import WaylandSession

/// What covers a Wayland session while a shielded app has the focus: the agent's own window in
/// the layer shell's overlay layer (`OverlayShieldWindow`, wlroots compositors and KWin), or the
/// shield GNOME Shell's extension draws inside the Shell (`ShellShieldCover`).
protocol ShieldOverlay: AnyObject {
    /// The shield shown (or last sent to be shown).
    var shield: ResolvedShield? { get }
    var isVisible: Bool { get }
    /// Where it is on the screen.
    var frame: ScreenRect { get }
    /// Hears when the shield is on the screen.
    var onShown: (() -> Void)? { get set }
    func show(_ shield: ResolvedShield)
    func redraw(_ shield: ResolvedShield)
    func hide()
}

extension OverlayShieldWindow: ShieldOverlay {}

/// The shield as GNOME Shell's Screenward extension draws it: over the whole stage, above every
/// window, holding the keyboard (a modal grab of the Shell's); its buttons come back as actions.
final class ShellShieldCover: ShieldOverlay {
    private let shell: GnomeShellDisplay
    private(set) var shield: ResolvedShield?
    private(set) var isVisible = false
    /// The Shell's stage, as the extension said when it drew the shield.
    private(set) var frame = ScreenRect(x: 0, y: 0, width: 0, height: 0)
    var onShown: (() -> Void)?

    init(shell: GnomeShellDisplay, onAction: @escaping (ShieldAction) -> Void) {
        self.shell = shell
        shell.onShieldShown = { [weak self] size in
            guard let self, isVisible else { return }
            let sides = size.split(separator: "x").compactMap { Int($0) }
            if sides.count == 2 { frame = ScreenRect(x: 0, y: 0, width: sides[0], height: sides[1]) }
            onShown?()
        }
        shell.onShieldPressed = { name in
            if let action = ShieldAction(rawValue: name) { onAction(action) }
        }
    }

    func show(_ shield: ResolvedShield) {
        isVisible = true
        redraw(shield)
    }

    func redraw(_ shield: ResolvedShield) {
        self.shield = shield
        // The blur style's tint as this agent's other overlays paint it; the Shell blurs what is
        // behind (its own windows' pixels, which no client may read).
        let drawn = Drawn(shield: shield, tint: shield.backgroundBlurStyle.tint(dark: GtkToolkit.prefersDark))
        guard let json = try? JSONEncoder().encode(drawn) else { return }
        shell.showShield(String(decoding: json, as: UTF8.self))
    }

    /// What the extension draws.
    private struct Drawn: Encodable {
        var shield: ResolvedShield
        var tint: ShieldColor
    }

    func hide() {
        shield = nil
        isVisible = false
        shell.showShield("")
    }
}
