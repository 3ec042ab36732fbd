import CGtk
import Foundation
import GtkBase
import ScreenwardCore

/// One line of the picker's list: a category's header with its "whole category" box, an
/// application with its icon, name and id, the websites' header, the website typed in the
/// search (ticking it adds it), or a website. The whole line is the check button, so a
/// click anywhere on it ticks it; the row around it takes the keyboard focus.
final class PickerRow {
    enum Kind {
        case category(PickerGroup)
        case application(PickerApplication)
        case websitesHeader
        /// Shown while the search holds a website's name that is not listed yet.
        case typedWebsite
        case website(PickerWebsite)
    }

    let kind: Kind
    /// The GtkListBoxRow.
    let row: UnsafeMutablePointer<GtkWidget>
    /// The check button; the websites' header has a label there, with nothing to tick.
    let check: UnsafeMutablePointer<GtkWidget>
    /// The typed website's label ("Add the website …").
    private var typedLabel: UnsafeMutablePointer<GtkWidget>?

    /// The size application icons are drawn at; GTK loads each one only when its row is
    /// first drawn, so a list of hundreds opens as fast as one of ten.
    static let iconSize: Int32 = 24
    /// What an application without a usable icon shows.
    static let fallbackIcon = "application-x-executable"
    /// The picker's texts, in the session's language (po/, context "picker").
    static let texts = Translations.session

    /// What a website's row shows instead of an application's icon.
    static let websiteIcon = "web-browser"

    convenience init(_ kind: Kind) {
        switch kind {
        case .category(let group): self.init(category: group)
        case .application(let application): self.init(application: application)
        case .websitesHeader: self.init(websitesHeader: ())
        case .typedWebsite: self.init(typedWebsite: ())
        case .website(let website): self.init(website: website)
        }
    }

    init(websitesHeader: Void) {
        kind = .websitesHeader
        check = gtk_label_new(nil)!
        let title = Self.texts("Websites", context: "picker")
        let detail = Self.texts("seen in a browser, or type one in the search", context: "picker")
        gtk_label_set_markup(cast(check), "<b>\(Self.escaped(title))</b>  <small>\(Self.escaped(detail))</small>")
        gtk_label_set_xalign(cast(check), 0)
        gtk_label_set_line_wrap(cast(check), 1)
        row = Self.listRow(holding: check)
        gtk_widget_set_margin_top(check, 10)
        gtk_widget_set_margin_bottom(check, 4)
    }

    init(typedWebsite: Void) {
        kind = .typedWebsite
        (check, typedLabel) = Self.itemCheck(icon: "list-add", markup: nil)
        row = Self.listRow(holding: check)
    }

    init(website: PickerWebsite) {
        kind = .website(website)
        let detail =
            website.name == website.domain
            ? Self.texts("website", context: "picker")
            : Self.texts("website · {domain}", context: "picker", ["domain": website.domain])
        check =
            Self.itemCheck(icon: Self.websiteIcon, markup: Self.markup(Self.escaped(website.name), under: detail)).check
        row = Self.listRow(holding: check)
    }

    /// The typed website's row names the website it adds.
    func showTyped(_ domain: String) {
        guard let typedLabel else { return }
        gtk_label_set_markup(
            cast(typedLabel),
            Self.markup(
                Translations.fill(
                    Self.escaped(Self.texts("Add the website {website}", context: "picker")),
                    ["website": "<b>\(Self.escaped(HostName.readable(domain)))</b>"]),
                under: Self.texts("tick it, or press Enter, to choose it", context: "picker")))
    }

    /// Whether the row has a box to tick (the websites' header has none).
    var hasBox: Bool {
        if case .websitesHeader = kind { return false }
        return true
    }

    init(category group: PickerGroup) {
        kind = .category(group)
        check = gtk_check_button_new()
        let title = gtk_label_new(nil)!
        let escaped = Self.escaped(group.title)
        let whole = Self.texts("the whole category", context: "picker")
        gtk_label_set_markup(cast(title), "<b>\(escaped)</b>  <small>\(Self.escaped(whole))</small>")
        gtk_label_set_xalign(cast(title), 0)
        gtk_container_add(cast(check), title)
        row = Self.listRow(holding: check)
        gtk_widget_set_margin_top(check, 10)
    }

    init(application: PickerApplication) {
        kind = .application(application)
        check =
            Self.itemCheck(
                icon: application.icon, markup: Self.markup(Self.escaped(application.name), under: application.id)
            ).check
        row = Self.listRow(holding: check)
    }

    var id: String {
        switch kind {
        case .category(let group): group.categoryID
        case .application(let application): application.id
        case .websitesHeader: "websites"
        case .typedWebsite: "typed"
        case .website(let website): website.domain
        }
    }

    /// How the trace names it: `category ID`, `app ID`, `site DOMAIN`, `typed-site`, `section websites`.
    var traceName: String {
        switch kind {
        case .category(let group): "category \(group.categoryID)"
        case .application(let application): "app \(application.id)"
        case .websitesHeader: "section websites"
        case .typedWebsite: "typed-site"
        case .website(let website): "site \(website.domain)"
        }
    }

    var isTicked: Bool { hasBox && gtk_toggle_button_get_active(cast(check)) != 0 }

    /// Ticks or unticks it as a click would (nothing when a ticked category locks it).
    func toggle() {
        guard hasBox, gtk_widget_is_sensitive(check) != 0 else { return }
        gtk_toggle_button_set_active(cast(check), isTicked ? 0 : 1)
    }

    func show(ticked: Bool, locked: Bool) {
        guard hasBox else { return }
        gtk_toggle_button_set_active(cast(check), ticked ? 1 : 0)
        gtk_widget_set_sensitive(check, locked ? 0 : 1)
    }

    /// An item's box: its icon, and one label (markup) for its name and the dim line under
    /// it, indented under its category. One label, not two: half the text layouts, which is
    /// most of what opening a list of hundreds costs.
    private static func itemCheck(icon: String?, markup: String?) -> (
        check: UnsafeMutablePointer<GtkWidget>, label: UnsafeMutablePointer<GtkWidget>
    ) {
        let check = gtk_check_button_new()!
        let line = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8)!
        gtk_container_add(cast(line), Self.icon(icon))
        let label = gtk_label_new(nil)!
        if let markup { gtk_label_set_markup(cast(label), markup) }
        gtk_label_set_xalign(cast(label), 0)
        gtk_label_set_ellipsize(cast(label), PANGO_ELLIPSIZE_END)
        gtk_box_pack_start(cast(line), label, 1, 1, 0)
        gtk_container_add(cast(check), line)
        gtk_widget_set_margin_start(check, 18)
        return (check, label)
    }

    /// `first` (markup already) over `detail` (text), small and dim.
    private static func markup(_ first: String, under detail: String) -> String {
        "\(first)\n<small><span alpha=\"65%\">\(escaped(detail))</span></small>"
    }

    private static func listRow(holding check: UnsafeMutablePointer<GtkWidget>) -> UnsafeMutablePointer<GtkWidget> {
        let row = gtk_list_box_row_new()!
        // The row takes the keyboard focus (GtkListBox moves it with Tab and the arrows, and
        // a row that cannot take it stops Tab there); the check button inside takes the
        // clicks. Space on a focused row ticks it (PickerWindow's keys).
        gtk_list_box_row_set_activatable(cast(row), 0)
        gtk_list_box_row_set_selectable(cast(row), 0)
        gtk_widget_set_can_focus(check, 0)
        gtk_widget_set_margin_start(check, gtk_widget_get_margin_start(check) + 6)
        gtk_container_add(cast(row), check)
        return row
    }

    /// A themed name (with the generic application icon behind it) or a file.
    private static func icon(_ icon: String?) -> UnsafeMutablePointer<GtkWidget> {
        GtkIconImage.image(icon, size: iconSize, fallback: fallbackIcon)
    }

    static func escaped(_ text: String) -> String {
        guard let escaped = g_markup_escape_text(text, -1) else { return "" }
        defer { g_free(escaped) }
        return String(cString: escaped)
    }
}
