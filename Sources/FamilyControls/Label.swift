import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardIPC

/// The name and icon of what a token stands for (an application, a category, a website),
/// drawn by the state owner inside a window of the app's: Apple's `Label(_ token:)`, with
/// which an app shows what the person picked without learning what it is.
///
/// ```swift
/// // A GTK app: a GtkSocket in its window, and the label in it.
/// let socket = gtk_socket_new()
/// gtk_container_add(box, socket)
/// gtk_widget_show(socket)
/// try await Label(token).show(inWindow: UInt(gtk_socket_get_id(socket)))
/// ```
///
/// Apple's is a SwiftUI view drawn outside the app's process. Here the owner (the agent in a
/// person's own account; the managed session's agent, as its own system user, in an account a
/// guardian manages) embeds a window of its own in the app's (XEmbed: any X window the app's
/// process made will do, a GtkSocket's best), which fills it until that window goes. The name
/// never reaches the app's process; on X11 a program can still read any window's pixels
/// (docs/picker.md, "What an app learns").
public struct Label: Sendable {
    /// What the label shows, as SwiftUI's label styles.
    public enum Style: String, Codable, Hashable, Sendable {
        case titleAndIcon
        case titleOnly
        case iconOnly
    }

    let token: FamilyActivitySelection
    public var style: Style

    public init(_ token: ApplicationToken, style: Style = .titleAndIcon) {
        self.token = FamilyActivitySelection(applicationTokens: [token])
        self.style = style
    }

    public init(_ token: ActivityCategoryToken, style: Style = .titleAndIcon) {
        self.token = FamilyActivitySelection(applicationTokens: [], categoryTokens: [token])
        self.style = style
    }

    public init(_ token: WebDomainToken, style: Style = .titleAndIcon) {
        self.token = FamilyActivitySelection(applicationTokens: [], webDomainTokens: [token])
        self.style = style
    }

    /// Draws the label in the X window `window` (by its id), which this process must have
    /// made, filling it; it stays until that window is destroyed.
    ///
    /// Throws `FamilyControlsError` when the app is not authorised, the token is not one of
    /// its own, or the window is not its own.
    public func show(inWindow window: UInt) async throws {
        do {
            _ = try await ScreenwardApp.client.call(
                LabelMethods.show, LabelRequest(token: token, style: style, window: window), timeout: .seconds(20))
        } catch let error as ServiceError {
            throw FamilyControlsError.thrown(error)
        }
    }
}

/// The request `Label.show` sends to the state owner.
@_spi(Screenward) public enum LabelMethods {
    public static let show = ServiceMethod<LabelRequest, Empty>("label.show")
}

@_spi(Screenward) public struct LabelRequest: Codable, Hashable, Sendable {
    /// One token of the app's.
    public var token: FamilyActivitySelection
    public var style: Label.Style
    /// The app's X window to draw in.
    public var window: UInt

    public init(token: FamilyActivitySelection, style: Label.Style, window: UInt) {
        self.token = token
        self.style = style
        self.window = window
    }
}

/// What a label shows, worked out by the owner from the app's token; never sent to the app.
@_spi(Screenward) public struct LabelContents: Codable, Hashable, Sendable {
    public var title: String
    /// The gettext context the title is translated in where it is drawn (a category's name,
    /// "category"); nil: shown as it is (an application's own name, a domain).
    public var context: String?
    /// An icon theme name, or an icon file's absolute path.
    public var icon: String?

    public init(title: String, context: String? = nil, icon: String?) {
        self.title = title
        self.context = context
        self.icon = icon
    }
}
