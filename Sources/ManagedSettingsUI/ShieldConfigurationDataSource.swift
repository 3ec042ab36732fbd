import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardIPC
import Synchronization

/// Subclass and override to give shields your own look, as Apple's
/// `ShieldConfigurationDataSource`. The item shielded comes with what the system reveals
/// to the shield: the application's token, desktop id (`bundleIdentifier`) and display
/// name; the category's token and name; the web domain's token and domain.
///
/// Every method answers `ShieldConfiguration()` unless overridden: the default look.
/// Answer quickly: an answer that takes longer than 200 ms first shows the default
/// shield, replaced when the answer arrives.
///
/// The agent asks the data source of the app whose store put up the shield, with the
/// app's own tokens. Methods run one at a time, on a queue of their own (not the main
/// thread). Texts are shown as they are (no markup).
open class ShieldConfigurationDataSource {
    public required init() {}

    /// Runs an instance of this class as the app's shield configuration data source
    /// until the process ends: it attaches to the agent and reattaches after the agent
    /// restarts. `@main final class MyShield: ShieldConfigurationDataSource { … }` is a
    /// whole program. Exits with a message when the app is not authorised or no agent runs.
    open class func main() {
        // Returns Void, not Never: `@main` accepts only `() -> Void` mains. It never returns.
        ScreenwardApp.runExtension("the shield configuration data source") {
            try ShieldConfigurationAttachment.attach(Self(), client: ScreenwardApp.client)
        }
    }

    /// An application shielded for itself (it is in `shield.applications`).
    open func configuration(shielding application: Application) -> ShieldConfiguration {
        ShieldConfiguration()
    }

    /// An application shielded because of its category (`shield.applicationCategories`).
    open func configuration(shielding application: Application, in category: ActivityCategory) -> ShieldConfiguration {
        ShieldConfiguration()
    }

    /// A web domain shielded for itself (`shield.webDomains`).
    open func configuration(shielding webDomain: WebDomain) -> ShieldConfiguration {
        ShieldConfiguration()
    }

    /// A web domain shielded because of its category (`shield.webDomainCategories`).
    open func configuration(shielding webDomain: WebDomain, in category: ActivityCategory) -> ShieldConfiguration {
        ShieldConfiguration()
    }
}

extension ShieldConfigurationDataSource {
    /// Calls the method for `subject`.
    func configuration(for subject: ShieldRequestSubject) -> ShieldConfiguration {
        switch subject {
        case .application(let application): configuration(shielding: application)
        case .applicationInCategory(let application, let category): configuration(shielding: application, in: category)
        case .webDomain(let webDomain): configuration(shielding: webDomain)
        case .webDomainInCategory(let webDomain, let category): configuration(shielding: webDomain, in: category)
        }
    }
}

/// The requests a `ShieldConfigurationDataSource` sends and the pushes it receives.
@_spi(Screenward) public enum ShieldConfigurationMethods {
    /// From now on, this connection answers the app's shield configurations (the latest attach wins).
    public static let attach = ServiceMethod<Empty, Empty>("shield.configuration.attach")
    /// A shield of the app is about to show (or, after `.defer`, to be redrawn): answer with `answer`.
    public static let configure = PushKind<ShieldConfigurationRequest>("shield.configure")
    /// The data source's configuration for the push with this id. The agent replies
    /// `Empty` whatever it does with it (an id it no longer waits for is ignored).
    public static let answer = ServiceMethod<ShieldConfigurationAnswer, Empty>("shield.configuration.answer")
}

@_spi(Screenward) public struct ShieldConfigurationRequest: Codable, Hashable, Sendable {
    public var id: UInt64
    public var subject: ShieldRequestSubject

    public init(id: UInt64, subject: ShieldRequestSubject) {
        self.id = id
        self.subject = subject
    }
}

@_spi(Screenward) public struct ShieldConfigurationAnswer: Codable, Hashable, Sendable {
    public var id: UInt64
    public var configuration: ShieldConfiguration

    public init(id: UInt64, configuration: ShieldConfiguration) {
        self.id = id
        self.configuration = configuration
    }
}

/// A configuration data source attached to a client's connection: requests in,
/// configurations out. The connection may carry a monitor and a shield action delegate too.
@_spi(Screenward) public final class ShieldConfigurationAttachment: Sendable {
    private let dataSource: Mutex<ShieldConfigurationDataSource>
    private let client: ServiceClient

    private init(dataSource: sending ShieldConfigurationDataSource, client: ServiceClient) {
        self.dataSource = Mutex(dataSource)
        self.client = client
    }

    /// Attaches `dataSource` as its app's shield configuration data source (the app is
    /// `client`'s bundle identifier; it must be authorised), and again whenever the
    /// connection is remade.
    @discardableResult
    public static func attach(_ dataSource: sending ShieldConfigurationDataSource, client: ServiceClient) throws
        -> ShieldConfigurationAttachment
    {
        let attachment = ShieldConfigurationAttachment(dataSource: dataSource, client: client)
        client.transport.setPushReceiver(forKind: ShieldConfigurationMethods.configure.name) { [attachment] frame in
            attachment.received(frame)
        }
        _ = try client.call(ShieldConfigurationMethods.attach, Empty())
        try client.resendOnReconnect(ShieldConfigurationMethods.attach, Empty())
        return attachment
    }

    private func received(_ frame: Data) {
        ScreenwardApp.working { handle(frame) }
    }

    private func handle(_ frame: Data) {
        guard let request = try? ShieldConfigurationMethods.configure.body(from: frame) else {
            ScreenwardApp.report("ignored a message from the agent that is not a shield configuration request")
            return
        }
        let configuration = dataSource.withLock { $0.configuration(for: request.subject) }
        do {
            _ = try client.call(
                ShieldConfigurationMethods.answer,
                ShieldConfigurationAnswer(id: request.id, configuration: configuration))
        } catch {
            ScreenwardApp.report("could not send a shield configuration: \(error) (the default shield shows)")
        }
    }
}
