import Foundation

/// What `screenward-tray` prints with `SCREENWARD_TRAY_TRACE` set: each menu item's place
/// on the screen when its menu is shown (`menu item: LABEL at X,Y WxH`), for a real click.
public enum TrayTrace {
    /// trayer, a real XEmbed tray, along the top right of the screen (dark, so the menus' screenshots read).
    public static let trayerArguments = [
        "--edge", "top", "--align", "right", "--widthtype", "request", "--height", "28", "--SetDockType", "true",
        "--tint", "0x2e3440",
    ]

    /// The centre of the item labelled `label`, as last shown; nil when it was not.
    public static func place(of label: String, in lines: [String]) -> (x: Int, y: Int)? {
        let prefix = "menu item: \(label) at "
        guard let line = lines.last(where: { $0.hasPrefix(prefix) }) else { return nil }
        let parts = line.dropFirst(prefix.count).split(separator: " ")
        guard parts.count == 2 else { return nil }
        let origin = parts[0].split(separator: ",").compactMap { Int($0) }
        let size = parts[1].split(separator: "x").compactMap { Int($0) }
        guard origin.count == 2, size.count == 2 else { return nil }
        return (origin[0] + size[0] / 2, origin[1] + size[1] / 2)
    }
}
