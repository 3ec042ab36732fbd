import ScreenwardIPC

/// What a shield covers, as the agent tells an app's shield extensions: always in the
/// app's own tokens, with what the system reveals to a shield (an application's desktop
/// id and display name, a category's name, a web domain's name).
@_spi(Screenward) public enum ShieldRequestSubject: Codable, Hashable, Sendable {
    /// An application shielded for itself.
    case application(Application)
    /// An application shielded because of its category.
    case applicationInCategory(Application, ActivityCategory)
    /// A web domain shielded for itself.
    case webDomain(WebDomain)
    /// A web domain shielded because of its category.
    case webDomainInCategory(WebDomain, ActivityCategory)
}

/// The requests a `ShieldActionDelegate` sends and the pushes it receives.
@_spi(Screenward) public enum ShieldActionMethods {
    /// From now on, this connection answers the app's shield actions (the latest attach wins).
    public static let attach = ServiceMethod<Empty, Empty>("shield.action.attach")
    /// A button was pressed on one of the app's shields: answer with `answer`.
    public static let action = PushKind<ShieldActionRequest>("shield.action")
    /// The delegate's response to the push with this id. The agent replies `Empty`
    /// whatever it does with it (an id it no longer waits for is ignored).
    public static let answer = ServiceMethod<ShieldActionAnswer, Empty>("shield.action.answer")
    /// A guardian approved the access an `.askForAccess` asked for.
    public static let accessApproved = PushKind<AccessApproval>("shield.action.access-approved")
}

@_spi(Screenward) public struct AccessApproval: Codable, Hashable, Sendable {
    public var subject: ShieldRequestSubject
    public var guardian: String

    public init(subject: ShieldRequestSubject, guardian: String) {
        self.subject = subject
        self.guardian = guardian
    }
}

@_spi(Screenward) public struct ShieldActionRequest: Codable, Hashable, Sendable {
    public var id: UInt64
    public var action: ShieldAction
    public var subject: ShieldRequestSubject

    public init(id: UInt64, action: ShieldAction, subject: ShieldRequestSubject) {
        self.id = id
        self.action = action
        self.subject = subject
    }
}

@_spi(Screenward) public struct ShieldActionAnswer: Codable, Hashable, Sendable {
    public var id: UInt64
    public var response: ShieldActionResponse

    public init(id: UInt64, response: ShieldActionResponse) {
        self.id = id
        self.response = response
    }
}
