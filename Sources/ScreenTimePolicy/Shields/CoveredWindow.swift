import ScreenwardBasics
import ScreenwardIPC

/// One application window a shield covers now: what `screenward shields --json`
/// reports under `covered`, so scripts and tests can see the presenter's state.
public struct CoveredWindow: Hashable, Codable, Sendable {
    /// The covered window's X id, `0x…`.
    public var window: String
    /// The shield window's X id (WM_CLASS `shield`/`Screenward`).
    public var shieldWindow: String
    /// The application's public id (as in `screenward usage --json`) and name.
    public var application: String
    public var name: String
    /// The app whose store put the shield up, and the store.
    public var owner: String
    public var store: String
    /// Where the shield is (the covered window with its decorations), root pixels.
    public var frame: ScreenRect
    /// False while the covered window is minimized (the shield is hidden with it).
    public var visible: Bool
    /// The covered window's client process, as the X server knows it (nil when unknown):
    /// in a managed session the daemon holds it while it is covered.
    public var pid: Int32?

    public init(
        window: String, shieldWindow: String, application: String, name: String, owner: String, store: String,
        frame: ScreenRect,
        visible: Bool, pid: Int32? = nil
    ) {
        self.window = window
        self.shieldWindow = shieldWindow
        self.application = application
        self.name = name
        self.owner = owner
        self.store = store
        self.frame = frame
        self.visible = visible
        self.pid = pid
    }

    enum CodingKeys: String, CodingKey {
        case window, application, name, owner, store, frame, visible, pid
        case shieldWindow = "shield_window"
    }
}

/// Requests about what the agent shows on screen.
public enum PresenterMethods {
    /// The windows covered now; nil when the agent presents no shields (it runs
    /// without a display for shields, or shields are turned off).
    public static let covered = ServiceMethod<Empty, [CoveredWindow]?>("shields.covered")
}
