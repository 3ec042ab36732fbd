import CAppIndicator
import CGtk
import Foundation
import GtkBase

/// One entry of the tray's menu.
public indirect enum TrayMenuItem: Sendable {
    /// Text that does nothing (a heading, a figure).
    case label(String)
    case action(String, @Sendable () -> Void)
    case submenu(String, [TrayMenuItem])
    case separator
}

/// The tray icon and its menu: an AppIndicator (a StatusNotifierItem on desktops with a
/// host for them), which falls back by itself to the XEmbed tray (a `GtkStatusIcon`)
/// where there is none. GTK must run on this thread's main loop.
public final class TrayIndicator {
    private let indicator: UnsafeMutablePointer<AppIndicator>
    private let iconDirectory: URL
    private var menu: UnsafeMutablePointer<GtkWidget>?
    /// Prints each item's label and place on screen when the menu is shown (tests click them).
    private let traceMenu = ProcessInfo.processInfo.environment["SCREENWARD_TRAY_TRACE"] != nil

    /// - Parameter iconDirectory: where the icons (`TrayIconPainter`) are written; the
    ///   indicator looks its icons up there.
    public init(id: String, title: String, iconDirectory: URL, initialIcon: String) throws {
        try FileManager.default.createDirectory(
            at: iconDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        self.iconDirectory = iconDirectory
        guard
            let indicator = app_indicator_new_with_path(
                id, initialIcon, APP_INDICATOR_CATEGORY_APPLICATION_STATUS, iconDirectory.path)
        else {
            throw TrayError("could not make the tray indicator")
        }
        self.indicator = indicator
        app_indicator_set_title(indicator, title)
        app_indicator_set_status(indicator, APP_INDICATOR_STATUS_ACTIVE)
    }

    /// Shows the icon named `name` (a PNG in the icon directory, without `.png`), with
    /// `description` for screen readers.
    public func setIcon(_ name: String, description: String) {
        app_indicator_set_icon_full(indicator, name, description)
    }

    /// Whether the menu is open (replacing it now would close it under the pointer).
    public var isMenuOpen: Bool {
        guard let menu else { return false }
        return gtk_widget_get_mapped(menu) != 0 || openSubmenus(of: menu)
    }

    private func openSubmenus(of menu: UnsafeMutablePointer<GtkWidget>) -> Bool {
        var open = false
        let children = gtk_container_get_children(
            UnsafeMutableRawPointer(menu).assumingMemoryBound(to: GtkContainer.self))
        var node = children
        while let current = node {
            if let item = current.pointee.data,
                let submenu = gtk_menu_item_get_submenu(item.assumingMemoryBound(to: GtkMenuItem.self)),
                gtk_widget_get_mapped(submenu) != 0
            {
                open = true
            }
            node = current.pointee.next
        }
        g_list_free(children)
        return open
    }

    /// Replaces the menu.
    public func setMenu(_ items: [TrayMenuItem]) {
        let built = Self.build(items, trace: traceMenu)
        app_indicator_set_menu(indicator, UnsafeMutableRawPointer(built).assumingMemoryBound(to: GtkMenu.self))
        menu = built
    }

    private static func build(_ items: [TrayMenuItem], trace: Bool) -> UnsafeMutablePointer<GtkWidget> {
        let menu = gtk_menu_new()!
        let shell = UnsafeMutableRawPointer(menu).assumingMemoryBound(to: GtkMenuShell.self)
        var widgets: [(String, UnsafeMutablePointer<GtkWidget>)] = []
        for item in items {
            let widget: UnsafeMutablePointer<GtkWidget>
            switch item {
            case .label(let text):
                widget = gtk_menu_item_new_with_label(text)
                gtk_widget_set_sensitive(widget, 0)
                widgets.append((text, widget))
            case .action(let text, let action):
                widget = gtk_menu_item_new_with_label(text)
                GtkSignals.onNotification(widget, "activate") { action() }
                widgets.append((text, widget))
            case .submenu(let text, let children):
                widget = gtk_menu_item_new_with_label(text)
                gtk_menu_item_set_submenu(
                    UnsafeMutableRawPointer(widget).assumingMemoryBound(to: GtkMenuItem.self),
                    build(children, trace: trace))
                widgets.append((text, widget))
            case .separator:
                widget = gtk_separator_menu_item_new()
            }
            gtk_menu_shell_append(shell, widget)
        }
        gtk_widget_show_all(menu)
        if trace {
            // Once mapped, each item's place on the screen, for a test's real click.
            // "map" reaches submenus too ("map-event" does not); their places are set by then.
            GtkSignals.onNotification(menu, "map") {
                for (text, widget) in widgets { printPlace(of: widget, label: text) }
            }
        }
        return menu
    }

    private static func printPlace(of widget: UnsafeMutablePointer<GtkWidget>, label: String) {
        guard let window = gtk_widget_get_window(widget) else { return }
        var allocation = GtkAllocation()
        gtk_widget_get_allocation(widget, &allocation)
        var originX: Int32 = 0
        var originY: Int32 = 0
        gdk_window_get_origin(window, &originX, &originY)
        FileHandle.standardOutput.write(
            Data(
                """
                menu item: \(label) at \(originX + allocation.x),\(originY + allocation.y) \
                \(allocation.width)x\(allocation.height)\n
                """
                .utf8))
        FileHandle.standardOutput.synchronizeFile()
    }
}

public struct TrayError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
