import CGtk
import Foundation
import GtkBase
import ScreenwardCore

/// The activity picker's window: a search field, the list of categories and
/// applications with their boxes, then the websites, what is chosen so far, Cancel and Done.
///
/// Keys: typing anywhere searches; Tab and the arrows move between the rows, space
/// ticks the focused one; Enter is Done (or, while the search names a website not listed
/// yet, adds and ticks it) and Escape is Cancel.
final class PickerWindow {
    private(set) var catalog: PickerCatalog
    private let source: PickerSourceContents
    private var choice: PickerChoice
    private let window: UnsafeMutablePointer<GtkWidget>
    private let search: UnsafeMutablePointer<GtkWidget>
    private let list: UnsafeMutablePointer<GtkWidget>
    private let scroller: UnsafeMutablePointer<GtkWidget>
    private let summary: UnsafeMutablePointer<GtkWidget>
    private let done: UnsafeMutablePointer<GtkWidget>
    private let cancel: UnsafeMutablePointer<GtkWidget>
    private var rows: [PickerRow] = []
    /// While the boxes are set from the model, their "toggled" is not a person's click.
    private var updating = false
    private let trace: PickerTrace?
    private let finish: (PickerChoice?) -> Void
    private var finished = false

    /// Its X window title in English, for tests and window rules (a session in another
    /// language has it translated).
    static let title = "Choose apps, websites and categories"

    init(
        source: PickerSourceContents, choice: PickerChoice, header: String?, footer: String? = nil,
        trace: PickerTrace?,
        finish: @escaping (PickerChoice?) -> Void
    ) {
        self.source = source
        catalog = source.catalog
        self.choice = choice
        self.trace = trace
        self.finish = finish
        window = gtk_window_new(GTK_WINDOW_TOPLEVEL)
        let toplevel: UnsafeMutablePointer<GtkWindow> = cast(window)
        sw_window_set_wmclass(toplevel, "picker", "Screenward")
        gtk_window_set_title(
            toplevel, header ?? PickerRow.texts("Choose apps, websites and categories", context: "picker"))
        gtk_window_set_default_size(toplevel, 480, 600)
        gtk_window_set_position(toplevel, GTK_WIN_POS_CENTER)
        gtk_window_set_type_hint(toplevel, GDK_WINDOW_TYPE_HINT_DIALOG)

        let column = gtk_box_new(GTK_ORIENTATION_VERTICAL, 8)!
        for margin in [
            gtk_widget_set_margin_top, gtk_widget_set_margin_bottom, gtk_widget_set_margin_start,
            gtk_widget_set_margin_end,
        ] {
            margin(column, 12)
        }
        if let header {
            let label = gtk_label_new(nil)!
            gtk_label_set_markup(cast(label), "<b>\(PickerRow.escaped(header))</b>")
            gtk_label_set_line_wrap(cast(label), 1)
            gtk_label_set_xalign(cast(label), 0)
            gtk_container_add(cast(column), label)
        }
        search = gtk_search_entry_new()
        gtk_entry_set_placeholder_text(
            cast(search),
            source.addresses == nil
                ? PickerRow.texts("Search apps and categories", context: "picker")
                : PickerRow.texts("Search apps and categories, or type a website", context: "picker"))
        gtk_container_add(cast(column), search)

        list = gtk_list_box_new()
        gtk_list_box_set_selection_mode(cast(list), GTK_SELECTION_NONE)
        scroller = gtk_scrolled_window_new(nil, nil)
        gtk_scrolled_window_set_policy(cast(scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC)
        gtk_scrolled_window_set_shadow_type(cast(scroller), GTK_SHADOW_IN)
        gtk_container_add(cast(scroller), list)
        gtk_box_pack_start(cast(column), scroller, 1, 1, 0)

        summary = gtk_label_new("")
        gtk_label_set_xalign(cast(summary), 0)
        gtk_label_set_ellipsize(cast(summary), PANGO_ELLIPSIZE_END)
        gtk_container_add(cast(column), summary)
        if let footer {
            // The app's words, shown as they are (never as markup), dimmed under the choice.
            let label = gtk_label_new(footer)!
            gtk_label_set_line_wrap(cast(label), 1)
            gtk_label_set_xalign(cast(label), 0)
            gtk_style_context_add_class(gtk_widget_get_style_context(label), "dim-label")
            gtk_container_add(cast(column), label)
        }

        let buttons = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8)!
        gtk_widget_set_halign(buttons, GTK_ALIGN_END)
        cancel = gtk_button_new_with_label(PickerRow.texts("Cancel", context: "picker"))
        done = gtk_button_new_with_label(PickerRow.texts("Done", context: "picker"))
        gtk_widget_set_can_default(done, 1)
        gtk_style_context_add_class(gtk_widget_get_style_context(done), "suggested-action")
        gtk_container_add(cast(buttons), cancel)
        gtk_container_add(cast(buttons), done)
        gtk_container_add(cast(column), buttons)
        gtk_container_add(cast(window), column)

        pending =
            catalog.groups.flatMap { group in
                [PickerRow.Kind.category(group)] + group.applications.map(PickerRow.Kind.application)
            }
            + [.websitesHeader, .typedWebsite] + catalog.websites.map(PickerRow.Kind.website)
        buildRows(Self.firstRows)
        connectSignals()
        showChoice()
        gtk_widget_show_all(window)
        // Showing the window showed every row: the typed website's is for a search only.
        for row in rows { gtk_widget_set_visible(row.row, isShown(row) ? 1 : 0) }
        gtk_widget_grab_default(done)
        gtk_widget_grab_focus(search)
        gtk_window_present(toplevel)
    }

    // MARK: The list

    /// Rows built before the window is first shown: more than its default height holds (13).
    static let firstRows = 24
    /// Rows built per idle turn after that, between the person's events.
    static let rowsPerTurn = 60
    /// Rows not built yet, in list order.
    private var pending: [PickerRow.Kind] = []
    /// What the search shows (nil: everything), for the rows built after it.
    private var shown: (categories: Set<String>, applications: Set<String>, websites: Set<String>)?
    /// The website the search names that is not listed yet: its row offers to add it.
    private var typed: String?

    /// Builds the next `count` rows, with the search and the ticks already applied. GtkListBox
    /// measures every row it holds before it shows any, about 0.3 ms a row here: the rows
    /// beyond the first screen are built once the window is shown, a few dozen per idle
    /// turn, so a list of hundreds opens as fast as a short one and stays responsive.
    private func buildRows(_ count: Int) {
        let kinds = pending.prefix(count)
        pending.removeFirst(kinds.count)
        updating = true
        defer { updating = false }
        for kind in kinds {
            let row = PickerRow(kind)
            rows.append(row)
            gtk_container_add(cast(list), row.row)
            show(row)
            gtk_widget_show_all(row.row)
            gtk_widget_set_visible(row.row, isShown(row) ? 1 : 0)
            GtkSignals.onNotification(row.check, "toggled") { [unowned self, unowned row] in toggled(row) }
        }
    }

    private func buildTheRestWhenIdle() {
        guard !pending.isEmpty else { return }
        PickerIdle.repeat { [weak self] in
            guard let self, !finished else { return false }
            buildRows(Self.rowsPerTurn)
            if pending.isEmpty {
                trace?.complete(rows: rows.count)
                trace?.visibleTexts(GtkVisibleTexts.of(window: window))
                traceRowsAfterNextDraw()
            }
            return !pending.isEmpty
        }
    }

    private func isShown(_ row: PickerRow) -> Bool {
        switch row.kind {
        case .typedWebsite: return typed != nil
        case .websitesHeader: return shown == nil || typed != nil || !(shown?.websites.isEmpty ?? true)
        default: break
        }
        guard let shown else { return true }
        return switch row.kind {
        case .category(let group): shown.categories.contains(group.categoryID)
        case .application(let application): shown.applications.contains(application.id)
        case .website(let website): shown.websites.contains(website.domain)
        case .websitesHeader, .typedWebsite: true
        }
    }

    private func toggled(_ row: PickerRow) {
        guard !updating else { return }
        switch row.kind {
        case .category(let group): choice.set(category: group.categoryID, ticked: row.isTicked)
        case .application(let application): choice.set(application, ticked: row.isTicked)
        case .website(let website): choice.set(website, ticked: row.isTicked)
        case .typedWebsite:
            if row.isTicked { addTypedWebsite() }
            return
        case .websitesHeader: return
        }
        showChoice()
        trace?.ticked(row.id, row.isTicked)
    }

    /// Lists the website the search names, ticked, in its place among the others.
    private func addTypedWebsite() {
        guard let domain = typed else { return }
        // Its place is among rows that must exist first.
        buildRows(pending.count)
        let index = catalog.add(website: domain, categories: source.categories)
        guard let website = catalog.website(domain: domain),
            let first = rows.firstIndex(where: { if case .typedWebsite = $0.kind { true } else { false } })
        else { return }
        let position = first + 1 + index
        let row = PickerRow(.website(website))
        rows.insert(row, at: position)
        gtk_list_box_insert(cast(list), row.row, Int32(position))
        gtk_widget_show_all(row.row)
        GtkSignals.onNotification(row.check, "toggled") { [unowned self, unowned row] in toggled(row) }
        choice.set(website, ticked: true)
        trace?.ticked(row.id, true)
        // The search now matches the listed website: its row shows, the offer goes.
        filter()
        showChoice()
    }

    /// Sets every box from the model (a ticked category ticks and locks its applications)
    /// and says what is chosen.
    private func showChoice() {
        updating = true
        defer { updating = false }
        for row in rows { show(row) }
        gtk_label_set_text(cast(summary), PickerSummary.text(of: choice, in: catalog, texts: PickerRow.texts))
    }

    private func show(_ row: PickerRow) {
        switch row.kind {
        case .category(let group): row.show(ticked: choice.isTicked(category: group.categoryID), locked: false)
        case .application(let application):
            row.show(ticked: choice.isTicked(application), locked: choice.isCoveredByCategory(application))
        case .website(let website):
            row.show(ticked: choice.isTicked(website), locked: choice.isCoveredByCategory(website))
        case .typedWebsite:
            row.show(ticked: false, locked: false)
            if let typed { row.showTyped(typed) }
        case .websitesHeader: break
        }
    }

    /// Shows only the rows the search matches.
    private func filter() {
        let query = String(cString: gtk_entry_get_text(cast(search)))
        let matching = catalog.matching(query)
        let applications = Set(matching.flatMap(\.applications).map(\.id))
        var websites = Set(catalog.matchingWebsites(query).map(\.domain))
        // A website's name typed (`www.example.org`) shows that website, or offers to add it.
        let named = PickerCatalog.website(typed: query, addresses: source.addresses)
        typed = named.flatMap { catalog.website(domain: $0) == nil ? $0 : nil }
        if let named, typed == nil { websites.insert(named) }
        shown = query.allSatisfy(\.isWhitespace) ? nil : (Set(matching.map(\.categoryID)), applications, websites)
        updating = true
        for row in rows {
            if case .typedWebsite = row.kind { show(row) }
            gtk_widget_set_visible(row.row, isShown(row) ? 1 : 0)
        }
        updating = false
        gtk_adjustment_set_value(gtk_scrolled_window_get_vadjustment(cast(scroller)), 0)
        trace?.searched(query, applications: applications.count)
        trace?.visibleTexts(GtkVisibleTexts.of(window: window))
        traceRowsAfterNextDraw()
    }

    // MARK: Signals and keys

    private func connectSignals() {
        GtkSignals.onNotification(search, "changed") { [unowned self] in filter() }
        GtkSignals.onNotification(search, "activate") { [unowned self] in enter() }
        GtkSignals.onNotification(done, "clicked") { [unowned self] in close(with: choice) }
        GtkSignals.onNotification(cancel, "clicked") { [unowned self] in close(with: nil) }
        // A scroll moves the boxes: the trace says where they are once drawn there.
        if let adjustment = gtk_scrolled_window_get_vadjustment(cast(scroller)) {
            GtkSignals.onNotification(adjustment, "value-changed") { [unowned self] in traceRowsAfterNextDraw() }
        }
        GtkSignals.onEvent(window, "delete-event") { [unowned self] _ in
            close(with: nil)
            return true
        }
        GtkSignals.onEvent(window, "key-press-event") { [unowned self] event in keyPressed(event) }
        GtkSignals.onNotification(window, "destroy") { [unowned self] in
            // Destroyed from outside (another X client may destroy any window): a cancel.
            guard !finished else { return }
            finished = true
            finish(nil)
        }
        watchFrames()
    }

    /// Runs before the focused widget sees the key (a handler connected to the window).
    private func keyPressed(_ event: UnsafeMutablePointer<GdkEvent>) -> Bool {
        let key = event.pointee.key
        switch Int32(key.keyval) {
        case GDK_KEY_Escape:
            close(with: nil)
            return true
        case GDK_KEY_Return, GDK_KEY_KP_Enter, GDK_KEY_ISO_Enter:
            enter()
            return true
        case GDK_KEY_space, GDK_KEY_KP_Space:
            let focus = gtk_window_get_focus(cast(window))
            guard let row = rows.first(where: { $0.row == focus }) else { return false }
            row.toggle()
            return true
        default:
            break
        }
        // Type to search: a printable key (not space, which ticks; no Ctrl or Alt) typed
        // while a box has the focus goes to the search field.
        let character = gdk_keyval_to_unicode(key.keyval)
        let modifiers = key.state & (GDK_CONTROL_MASK.rawValue | GDK_MOD1_MASK.rawValue)
        guard gtk_widget_has_focus(search) == 0, character > 32, character != 127, modifiers == 0 else { return false }
        gtk_entry_grab_focus_without_selecting(cast(search))
        return gtk_widget_event(search, event) != 0
    }

    /// Enter: adds the website the search names, if it offers one; Done otherwise.
    private func enter() {
        if typed != nil {
            addTypedWebsite()
        } else {
            close(with: choice)
        }
    }

    private func close(with result: PickerChoice?) {
        guard !finished else { return }
        finished = true
        gtk_widget_hide(window)
        finish(result)
    }

    // MARK: Trace

    /// The first frame (with the first rows) is due: the trace's "ready" comes with it.
    private var traceDue = true

    /// Tells the trace, once the list is drawn again, where each box shown is.
    private func traceRowsAfterNextDraw() {
        guard trace != nil else { return }
        traceDue = true
        gtk_widget_queue_draw(window)
    }

    /// The first frame starts the building of the remaining rows; each frame after a change
    /// of the list traces where its boxes are.
    private func watchFrames() {
        var drawn = false
        GtkSignals.onDraw(window) { [unowned self] _ in
            if !drawn {
                drawn = true
                buildTheRestWhenIdle()
            }
            guard traceDue, let trace else { return }
            traceDue = false
            trace.shown(
                rows: visibleRows(), done: place(of: done), cancel: place(of: cancel), search: place(of: search))
        }
    }

    private func visibleRows() -> [(row: PickerRow, place: PickerTrace.Place)] {
        let viewport = place(of: scroller)
        return rows.compactMap { row in
            guard gtk_widget_get_visible(row.row) != 0, let place = place(of: row.check), let viewport,
                place.y >= viewport.y, place.y + place.height <= viewport.y + viewport.height
            else { return nil }
            return (row, place)
        }
    }

    /// Where `widget` is on the screen; nil before it is laid out.
    private func place(of widget: UnsafeMutablePointer<GtkWidget>) -> PickerTrace.Place? {
        guard let gdkWindow = gtk_widget_get_window(window), gtk_widget_get_mapped(widget) != 0 else { return nil }
        var x: Int32 = 0
        var y: Int32 = 0
        guard gtk_widget_translate_coordinates(widget, window, 0, 0, &x, &y) != 0 else { return nil }
        var originX: Int32 = 0
        var originY: Int32 = 0
        gdk_window_get_origin(gdkWindow, &originX, &originY)
        var allocation = GtkAllocation()
        gtk_widget_get_allocation(widget, &allocation)
        return PickerTrace.Place(
            x: Int(originX + x), y: Int(originY + y), width: Int(allocation.width), height: Int(allocation.height))
    }
}
