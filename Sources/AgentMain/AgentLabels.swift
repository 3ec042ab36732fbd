@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ScreenTimeOwner
import ScreenwardCore
import ScreenwardIPC
import ShieldUI
import X11Session

/// The labels the owner draws in apps' windows (`Label(token)`, `label.show`): what a token
/// stands for, drawn by this process inside a window the asking process made, which the X
/// server vouches for (X-Resource). Shared by a person's own agent (the owner is its own
/// service) and a managed session's agent (the daemon worked the contents out).
final class AgentLabels {
    /// The X connection the apps' windows are on; nil on Wayland, where no client may draw
    /// inside another's window.
    private let connection: XConnection?
    private let log: AgentLog
    /// Whether GTK runs on this display (the shield presenter started).
    private let canDraw: () -> Bool
    /// The session's language, for a category's name.
    private let language: () -> String
    private var shown: [ObjectIdentifier: TokenLabelPlug] = [:]

    /// The most labels shown at once (an app drawing without end is refused, not obeyed).
    static let maximumShown = 500

    init(
        connection: XConnection?, log: AgentLog, language: @escaping () -> String, canDraw: @escaping () -> Bool
    ) {
        self.connection = connection
        self.log = log
        self.language = language
        self.canDraw = canDraw
    }

    /// Draws `contents` in `window`, which the process `pid` must have made.
    func show(_ contents: LabelContents, style: Label.Style, inWindow window: UInt, of pid: Int32?, app: String)
        throws
    {
        guard canDraw() else {
            // swift-format-ignore
            throw ServiceError(.unsupported, Phrase("the agent shows no windows on this display, so it cannot draw a label", context: "service"))
        }
        guard let connection else {
            // swift-format-ignore
            throw ServiceError(.unsupported, Phrase("a label is drawn only in an X11 session: Wayland lets no program draw inside another's window", context: "service"))
        }
        guard let pid, let creator = connection.creatorProcessID(ofWindow: window), creator == pid else {
            // swift-format-ignore
            throw ServiceError(.invalidArgument, Phrase("window {window} is not one {app} made on this display: a label is drawn only in the app's own window", context: "service", ["window": "\(window)", "app": app]))
        }
        guard shown.count < Self.maximumShown else {
            // swift-format-ignore
            throw ServiceError(.limitExceeded, Phrase("{maximum} labels are shown already; close some windows first", context: "service", ["maximum": "\(Self.maximumShown)"]))
        }
        let title =
            contents.context.map { Translations.forLanguage(language())(contents.title, context: $0) }
            ?? contents.title
        let plug = TokenLabelPlug(
            inWindow: window, title: title, icon: contents.icon, showsTitle: style != .iconOnly,
            showsIcon: style != .titleOnly)
        let key = ObjectIdentifier(plug)
        plug.onGone = { [unowned self] in shown[key] = nil }
        shown[key] = plug
        log.debug("labels: \(app)'s label drawn in window \(window)")
    }
}
