import CGtk
import Foundation
import GtkBase
import ScreenwardCore

/// The dialog a managed session's agent shows when an app asks a guardian: the
/// question ("Homework wants to manage kid's screen time"), the guardians' accounts to
/// choose from, a field for a one-time code from the guardian's authenticator app,
/// Cancel and Approve. It runs in the agent (not the child's uid), so the child cannot
/// trace it; but any X client of the child's display can read the keys typed into it, so
/// it never asks for a password: a code works once, and the daemon checks it.
///
/// What is not six digits is not sent (a login password typed by habit goes nowhere);
/// a wrong code keeps the dialog up with the daemon's message (and, when too many came
/// in a row, Approve stays off until the wait is over).
///
/// While it is up it holds the keyboard (an X grab, as a screen locker does): no other
/// client can grab it to take the code's last digits from the guardian. Reading keys needs
/// no grab (XRecord), which is why the daemon lets one dialog be open at a time, so that a
/// code read is good for nothing but what this dialog asks. A keyboard another program
/// holds, or a grab taken from the dialog (it was unmapped, say), voids the dialog: it
/// closes and the daemon records why (`onVoid`).
public final class GuardianDialog {
    private let window: UnsafeMutablePointer<GtkWidget>
    private let accounts: UnsafeMutablePointer<GtkWidget>
    private let code: UnsafeMutablePointer<GtkWidget>
    private let message: UnsafeMutablePointer<GtkWidget>
    private let approve: UnsafeMutablePointer<GtkWidget>
    private var reenable: guint = 0
    private var closed = false
    private let texts: GuardianDialogTexts
    private let onAnswer: (_ guardian: String, _ code: String) -> Void
    private let onCancel: () -> Void
    private let onVoid: (_ why: KeyboardLoss) -> Void
    /// Whether the dialog holds the keyboard now; and the timer of the tries to take it.
    private var holdsKeyboard = false
    private var grabRetry: guint = 0
    private var grabTries = 0

    /// How the dialog lost the keyboard it must hold.
    public enum KeyboardLoss: Sendable, Equatable {
        /// Another program held the keyboard for the whole second the dialog tried to take it.
        case heldByAnother
        /// The dialog's grab was taken from it (its window unmapped, or another grab).
        case taken
    }

    /// How long the dialog tries to take the keyboard (a window manager's own short grab, as
    /// during Alt+Tab, ends within it).
    static let grabTries = 10
    static let grabRetryMilliseconds: guint = 100

    /// Its X window title in English, for tests and window rules (a session in another
    /// language has it translated: `GuardianDialogTexts.title`).
    public static let title = "Screenward: a guardian's approval"

    /// Every text the dialog shows, as a person reads them.
    public var visibleTexts: [String] { closed ? [] : GtkVisibleTexts.of(window: window) }

    public init(
        question: String, guardians: [String], texts: GuardianDialogTexts, onAnswer: @escaping (String, String) -> Void,
        onCancel: @escaping () -> Void, onVoid: @escaping (KeyboardLoss) -> Void = { _ in }
    ) {
        self.texts = texts
        self.onAnswer = onAnswer
        self.onCancel = onCancel
        self.onVoid = onVoid
        window = DialogParts.window(title: texts.title, instance: "guardian")
        let hint = DialogParts.paragraph(texts.notEnrolledHint, dim: true)
        accounts = gtk_combo_box_text_new()
        for name in guardians { gtk_combo_box_text_append_text(cast(accounts), name) }
        gtk_combo_box_set_active(cast(accounts), 0)
        code = gtk_entry_new()
        // Shown as typed: a code is spent once used, so reading it off the screen is
        // worth nothing. The cap keeps a pasted novel out; the daemon checks it anyway.
        gtk_entry_set_input_purpose(cast(code), GTK_INPUT_PURPOSE_DIGITS)
        gtk_entry_set_max_length(cast(code), 12)
        gtk_entry_set_placeholder_text(cast(code), texts.codePlaceholder)
        gtk_entry_set_activates_default(cast(code), 1)
        message = DialogParts.paragraph("")
        let cancel = gtk_button_new_with_label(texts.cancel)!
        approve = gtk_button_new_with_label(texts.approve)
        gtk_widget_set_can_default(approve, 1)
        DialogParts.fill(
            window,
            with: [
                DialogParts.heading(question), DialogParts.paragraph(texts.explanation), hint,
                DialogParts.fieldLabel(texts.guardian, for: accounts), accounts,
                DialogParts.fieldLabel(texts.code, for: code), code, message, DialogParts.buttons([cancel, approve]),
            ])
        gtk_widget_grab_default(approve)

        GtkSignals.onNotification(approve, "clicked") { [unowned self] in submit() }
        GtkSignals.onNotification(cancel, "clicked") { [unowned self] in cancelled() }
        GtkSignals.onEvent(window, "delete-event") { [unowned self] _ in
            cancelled()
            return true
        }
        GtkSignals.onEvent(window, "key-press-event") { [unowned self] event in
            guard event.pointee.key.keyval == guint(GDK_KEY_Escape) else { return false }
            cancelled()
            return true
        }
        // Destroyed from outside (another X client may destroy any window): a cancel.
        GtkSignals.onNotification(window, "destroy") { [unowned self] in
            guard !closed else { return }
            closed = true
            stopTimers()
            onCancel()
        }
        GtkSignals.onEvent(window, "map-event") { [unowned self] _ in
            if !holdsKeyboard, grabRetry == 0 { takeKeyboard() }
            return false
        }
        GtkSignals.onEvent(window, "grab-broken-event") { [unowned self] _ in
            if holdsKeyboard { lostKeyboard(.taken) }
            return false
        }
        gtk_widget_show_all(window)
        gtk_widget_grab_focus(code)
        gtk_window_present(cast(window))
    }

    deinit { close() }

    /// The toplevel's X window id.
    public var windowID: UInt {
        guard !closed, let gdkWindow = gtk_widget_get_window(window) else { return 0 }
        return UInt(gdk_x11_window_get_xid(gdkWindow))
    }

    /// The daemon's word on the last answer: a wrong code (with a wait, maybe).
    public func showProblem(_ text: String, notBefore: Date?) {
        guard !closed else { return }
        gtk_label_set_text(cast(message), text)
        gtk_widget_set_sensitive(approve, 1)
        if reenable != 0 { g_source_remove(reenable) }
        reenable = 0
        if let notBefore, notBefore > Date() {
            gtk_widget_set_sensitive(approve, 0)
            let milliseconds = guint(min(Double(UInt32.max), notBefore.timeIntervalSinceNow * 1000 + 50))
            reenable = GtkTimeout.once(after: milliseconds) { [weak self] in
                guard let self, !closed else { return }
                reenable = 0
                gtk_widget_set_sensitive(approve, 1)
            }
        }
        gtk_widget_grab_focus(code)
    }

    public func close() {
        guard !closed else { return }
        closed = true
        stopTimers()
        if holdsKeyboard, let display = gdk_display_get_default(), let seat = gdk_display_get_default_seat(display) {
            holdsKeyboard = false
            gdk_seat_ungrab(seat)
        }
        gtk_widget_destroy(window)
    }

    private func stopTimers() {
        if reenable != 0 { g_source_remove(reenable) }
        reenable = 0
        if grabRetry != 0 { g_source_remove(grabRetry) }
        grabRetry = 0
    }

    /// Takes the keyboard for the dialog's window, trying again for a second while another
    /// client holds it; then gives up, and the dialog is void.
    private func takeKeyboard() {
        grabRetry = 0
        guard !closed, let gdkWindow = gtk_widget_get_window(window), let display = gdk_display_get_default(),
            let seat = gdk_display_get_default_seat(display)
        else { return }
        let status = gdk_seat_grab(seat, gdkWindow, GDK_SEAT_CAPABILITY_KEYBOARD, 1, nil, nil, nil, nil)
        if status == GDK_GRAB_SUCCESS {
            holdsKeyboard = true
            gdk_display_flush(display)
            return
        }
        grabTries += 1
        guard grabTries < Self.grabTries else { return lostKeyboard(.heldByAnother) }
        grabRetry = GtkTimeout.once(after: Self.grabRetryMilliseconds) { [weak self] in self?.takeKeyboard() }
    }

    private func lostKeyboard(_ why: KeyboardLoss) {
        guard !closed else { return }
        holdsKeyboard = false
        onVoid(why)
        close()
    }

    private func submit() {
        guard !closed, gtk_widget_get_sensitive(approve) != 0 else { return }
        guard let chosen = gtk_combo_box_text_get_active_text(cast(accounts)) else {
            gtk_label_set_text(cast(message), texts.chooseGuardian)
            return
        }
        let guardian = String(cString: chosen)
        g_free(chosen)
        let typed = String(cString: gtk_entry_get_text(cast(code)))
        // The field forgets it at once, code or not.
        gtk_entry_set_text(cast(code), "")
        guard let digits = try? OneTimeCodeInput.digits(of: typed) else {
            gtk_label_set_text(cast(message), texts.notACode)
            return
        }
        gtk_label_set_text(cast(message), texts.checking)
        gtk_widget_set_sensitive(approve, 0)
        onAnswer(guardian, digits)
    }

    private func cancelled() {
        guard !closed else { return }
        onCancel()
        close()
    }
}
