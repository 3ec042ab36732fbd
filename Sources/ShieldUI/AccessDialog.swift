import CGtk
import Foundation
import GtkBase
import ScreenwardCore

/// The dialog a person's own agent shows when an app asks for `.individual` Screen Time
/// access: which app ("“Worklog” would like to access Screen Time"), the program that asked,
/// what access allows, the person's own password, Don't Allow and Allow.
///
/// Nothing a program sends can answer it unseen:
/// - Allow works only after the dialog has held the focus for `armingDelay` without a break
///   (a key pressed for something else as it appears is not a yes), and only from a real
///   key press or click: events another client sends (`XSendEvent`, which X marks
///   `send_event`) are dropped before GTK sees them, and an activation with no input event
///   behind it (an accessibility action) is ignored.
/// - It asks for the person's password (checked by the agent with PAM); an account whose
///   person has none is confirmed by the real click alone, and so is root's (the machine's
///   administrator, who can write any ledger anyway).
///
/// A program of the person's could still type into it through XTEST, which X does not mark;
/// it would need the password. What it cannot protect against (the person's own programs
/// run as the person) is written down in docs/api.md.
public final class AccessDialog {
    private let window: UnsafeMutablePointer<GtkWidget>
    private let password: UnsafeMutablePointer<GtkWidget>?
    private let message: UnsafeMutablePointer<GtkWidget>
    private let allow: UnsafeMutablePointer<GtkWidget>
    private let dontAllow: UnsafeMutablePointer<GtkWidget>
    private let texts: AccessDialogTexts
    private let onAllow: (_ password: String) -> Void
    private let onDontAllow: () -> Void
    private var closed = false
    private var checking = false
    /// Whether Allow may be used: the dialog has had the focus for `armingDelay`.
    private var armed = false
    private var arming: guint = 0

    /// How long the dialog must hold the focus before Allow does anything.
    public static let armingDelay: guint = 1000

    /// Its X window title in English (translated in a session in another language).
    public static let title = AccessDialogTexts.english.title

    /// Every text the dialog shows, as a person reads them.
    public var visibleTexts: [String] { closed ? [] : GtkVisibleTexts.of(window: window) }

    /// - Parameters:
    ///   - app: the app's name (its manifest's, or the bundle identifier it gave).
    ///   - program: the executable of the process that asked.
    ///   - installed: whether an installed manifest names the app and that program.
    ///   - user: the account whose password confirms; nil asks for none.
    public init(
        app: String, program: String, installed: Bool, user: String?, texts: AccessDialogTexts,
        onAllow: @escaping (String) -> Void, onDontAllow: @escaping () -> Void
    ) {
        self.texts = texts
        self.onAllow = onAllow
        self.onDontAllow = onDontAllow
        window = DialogParts.window(title: texts.title, instance: "access")
        var rows = [
            DialogParts.heading(Translations.fill(texts.question, ["app": app])),
            DialogParts.paragraph(texts.explanation),
            DialogParts.paragraph(Translations.fill(texts.program, ["program": program]), dim: true),
        ]
        if !installed { rows.append(DialogParts.paragraph(texts.notInstalled)) }
        if let user {
            let entry = gtk_entry_new()!
            gtk_entry_set_visibility(cast(entry), 0)
            gtk_entry_set_input_purpose(cast(entry), GTK_INPUT_PURPOSE_PASSWORD)
            rows += [DialogParts.fieldLabel(Translations.fill(texts.password, ["user": user]), for: entry), entry]
            password = entry
        } else {
            password = nil
        }
        message = DialogParts.paragraph("")
        dontAllow = gtk_button_new_with_label(texts.dontAllow)
        allow = gtk_button_new_with_label(texts.allow)
        gtk_widget_set_sensitive(allow, 0)
        DialogParts.fill(window, with: rows + [message, DialogParts.buttons([dontAllow, allow])])
        let toplevel: UnsafeMutablePointer<GtkWindow> = cast(window)

        GtkSignals.onNotification(allow, "clicked") { [unowned self] in submit() }
        GtkSignals.onNotification(dontAllow, "clicked") { [unowned self] in refused() }
        GtkSignals.onEvent(window, "delete-event") { [unowned self] _ in
            refused()
            return true
        }
        // Keys reach the window before its widgets: one another client sent is dropped here,
        // so it types nothing into the password and presses no button. Enter and Space are
        // answered here too, while their key press is the event at hand: GTK's own keyboard
        // activation of a button clicks it later, from a timer, with no event to check.
        GtkSignals.onEvent(window, "key-press-event") { [unowned self] event in
            if event.pointee.key.send_event != 0 { return true }
            let focused = gtk_window_get_focus(toplevel)
            switch Int32(event.pointee.key.keyval) {
            case GDK_KEY_Escape:
                refused()
            case GDK_KEY_Return, GDK_KEY_KP_Enter, GDK_KEY_ISO_Enter:
                if focused == dontAllow { refused() } else { submit() }
            case GDK_KEY_space,
                GDK_KEY_KP_Space where focused == allow || focused == dontAllow:
                if focused == dontAllow { refused() } else { submit() }
            default:
                return false
            }
            return true
        }
        GtkSignals.onEvent(window, "key-release-event") { event in event.pointee.key.send_event != 0 }
        GtkSignals.onEvent(window, "focus-in-event") { [unowned self] _ in
            arm()
            return false
        }
        GtkSignals.onEvent(window, "focus-out-event") { [unowned self] _ in
            disarm()
            return false
        }
        // Destroyed from outside (another X client may destroy any window): not allowed.
        GtkSignals.onNotification(window, "destroy") { [unowned self] in
            guard !closed else { return }
            closed = true
            stopArming()
            onDontAllow()
        }
        gtk_widget_show_all(window)
        if let password { gtk_widget_grab_focus(password) }
        gtk_window_present(toplevel)
    }

    deinit { close() }

    /// The toplevel's X window id.
    public var windowID: UInt {
        guard !closed, let gdkWindow = gtk_widget_get_window(window) else { return 0 }
        return UInt(gdk_x11_window_get_xid(gdkWindow))
    }

    /// The password was not the person's: the dialog stays, for another try.
    public func wrongPassword() {
        guard !closed else { return }
        checking = false
        gtk_label_set_text(cast(message), texts.wrongPassword)
        gtk_widget_set_sensitive(allow, armed ? 1 : 0)
        if let password { gtk_widget_grab_focus(password) }
    }

    public func close() {
        guard !closed else { return }
        closed = true
        stopArming()
        gtk_widget_destroy(window)
    }

    // MARK: Arming

    private func arm() {
        guard !closed, !armed, arming == 0 else { return }
        arming = GtkTimeout.once(after: Self.armingDelay) { [weak self] in
            guard let self, !closed else { return }
            arming = 0
            armed = true
            if !checking { gtk_widget_set_sensitive(allow, 1) }
        }
    }

    private func disarm() {
        stopArming()
        armed = false
        gtk_widget_set_sensitive(allow, 0)
    }

    private func stopArming() {
        if arming != 0 { g_source_remove(arming) }
        arming = 0
    }

    // MARK: Answers

    /// Allow: only armed, and only from a real key press or click.
    private func submit() {
        guard !closed, armed, !checking, Self.currentEventIsReal() else { return }
        var typed = ""
        if let password {
            typed = String(cString: gtk_entry_get_text(cast(password)))
            // The field forgets it at once, right or wrong.
            gtk_entry_set_text(cast(password), "")
        }
        checking = true
        gtk_label_set_text(cast(message), texts.checking)
        gtk_widget_set_sensitive(allow, 0)
        onAllow(typed)
    }

    private func refused() {
        guard !closed else { return }
        onDontAllow()
        close()
    }

    /// Whether what GTK is handling now is input from the person: a key or button event X
    /// did not mark as sent by another client. No event at all (an accessibility action, a
    /// signal emitted by code) is not.
    private static func currentEventIsReal() -> Bool {
        guard let event = gtk_get_current_event() else { return false }
        defer { gdk_event_free(event) }
        switch event.pointee.type {
        case GDK_KEY_PRESS, GDK_KEY_RELEASE: return event.pointee.key.send_event == 0
        case GDK_BUTTON_PRESS, GDK_BUTTON_RELEASE: return event.pointee.button.send_event == 0
        default: return false
        }
    }
}
