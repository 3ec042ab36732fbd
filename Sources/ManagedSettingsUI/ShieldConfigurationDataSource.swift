/// Subclass and override to give shields your own look, as Apple's
/// `ShieldConfigurationDataSource`. The item shielded comes with what the system reveals
/// to the shield: the application's token, desktop id (`bundleIdentifier`) and display
/// name; the category's token and name; the web domain's token and domain.
///
/// Every method answers `ShieldConfiguration()` unless overridden: the default look.
/// Answer quickly: an answer that takes longer than 200 ms first shows the default
/// shield, replaced when the answer arrives.
open class ShieldConfigurationDataSource {
    public init() {}

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
