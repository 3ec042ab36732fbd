/// What a shield looks like, as Apple's `ShieldConfiguration`: every field is optional,
/// and a nil field takes the default look (Screenward's `data/shield.json`). Without a
/// `secondaryButtonLabel` the shield has no secondary button.
public struct ShieldConfiguration: Hashable, Codable, Sendable {
    /// A text and its color, as Apple's `ShieldConfiguration.Label(text:color:)`.
    public struct Label: Hashable, Codable, Sendable {
        public var text: String
        public var color: ShieldColor

        public init(text: String, color: ShieldColor) {
            self.text = text
            self.color = color
        }
    }

    public var backgroundBlurStyle: ShieldBlurStyle?
    public var backgroundColor: ShieldColor?
    public var icon: ShieldIcon?
    public var title: Label?
    public var subtitle: Label?
    public var primaryButtonLabel: Label?
    public var primaryButtonBackgroundColor: ShieldColor?
    public var secondaryButtonLabel: Label?

    public init(
        backgroundBlurStyle: ShieldBlurStyle? = nil,
        backgroundColor: ShieldColor? = nil,
        icon: ShieldIcon? = nil,
        title: Label? = nil,
        subtitle: Label? = nil,
        primaryButtonLabel: Label? = nil,
        primaryButtonBackgroundColor: ShieldColor? = nil,
        secondaryButtonLabel: Label? = nil
    ) {
        self.backgroundBlurStyle = backgroundBlurStyle
        self.backgroundColor = backgroundColor
        self.icon = icon
        self.title = title
        self.subtitle = subtitle
        self.primaryButtonLabel = primaryButtonLabel
        self.primaryButtonBackgroundColor = primaryButtonBackgroundColor
        self.secondaryButtonLabel = secondaryButtonLabel
    }
}
