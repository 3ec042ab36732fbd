import Foundation
import ManagedSettings

/// A person's activity on this computer, cut into the filter's segments: what a report
/// extension's `makeConfiguration(representing:)` gets. Applications carry the app's
/// own tokens and, because people read reports, their names.
public struct DeviceActivityData: Codable, Sendable {
    public struct User: Codable, Sendable, Hashable {
        public enum Role: String, Codable, Sendable { case individual, child }
        /// The login name.
        public var name: String
        public var role: Role
        public init(name: String, role: Role) {
            self.name = name
            self.role = role
        }
    }

    public struct Device: Codable, Sendable, Hashable {
        public enum Model: String, Codable, Sendable { case computer }
        /// The host name.
        public var name: String?
        public var model: Model
        public init(name: String?, model: Model = .computer) {
            self.name = name
            self.model = model
        }
    }

    public struct ApplicationActivity: Codable, Sendable {
        public var application: Application
        public var category: ActivityCategory
        public var totalActivityDuration: TimeInterval
        /// Pickups that began with this application.
        public var numberOfPickups: Int
        /// Notifications are not counted on Screenward: always 0.
        public var numberOfNotifications: Int

        public init(
            application: Application, category: ActivityCategory, totalActivityDuration: TimeInterval,
            numberOfPickups: Int, numberOfNotifications: Int
        ) {
            self.application = application
            self.category = category
            self.totalActivityDuration = totalActivityDuration
            self.numberOfPickups = numberOfPickups
            self.numberOfNotifications = numberOfNotifications
        }
    }

    public struct WebDomainActivity: Codable, Sendable {
        public var webDomain: WebDomain
        public var totalActivityDuration: TimeInterval

        public init(webDomain: WebDomain, totalActivityDuration: TimeInterval) {
            self.webDomain = webDomain
            self.totalActivityDuration = totalActivityDuration
        }
    }

    public struct CategoryActivity: Codable, Sendable {
        public var category: ActivityCategory
        public var totalActivityDuration: TimeInterval
        public var applications: DeviceActivityResults<ApplicationActivity>
        /// The websites of this category (data/categories.json) used in Chromium and Firefox
        /// with Screenward's extension. Their time is part of their browser's, so the
        /// category's `totalActivityDuration` counts its applications only.
        public var webDomains: DeviceActivityResults<WebDomainActivity>

        public init(
            category: ActivityCategory, totalActivityDuration: TimeInterval,
            applications: DeviceActivityResults<ApplicationActivity>,
            webDomains: DeviceActivityResults<WebDomainActivity>
        ) {
            self.category = category
            self.totalActivityDuration = totalActivityDuration
            self.applications = applications
            self.webDomains = webDomains
        }
    }

    public struct ActivitySegment: Codable, Sendable {
        public var dateInterval: DateInterval
        public var totalActivityDuration: TimeInterval
        /// The longest stretch of continuous use in the segment.
        public var longestActivity: DateInterval?
        /// When the first pickup of the segment began.
        public var firstPickup: Date?
        /// Pickups that began in the segment with one of the included applications.
        public var totalPickups: Int
        /// Screenward records the use of applications only, so a pickup in which no
        /// application was used is not seen: always 0.
        public var totalPickupsWithoutApplicationActivity: Int
        public var categories: DeviceActivityResults<CategoryActivity>

        public init(
            dateInterval: DateInterval, totalActivityDuration: TimeInterval, longestActivity: DateInterval?,
            firstPickup: Date?, totalPickups: Int,
            totalPickupsWithoutApplicationActivity: Int, categories: DeviceActivityResults<CategoryActivity>
        ) {
            self.dateInterval = dateInterval
            self.totalActivityDuration = totalActivityDuration
            self.longestActivity = longestActivity
            self.firstPickup = firstPickup
            self.totalPickups = totalPickups
            self.totalPickupsWithoutApplicationActivity = totalPickupsWithoutApplicationActivity
            self.categories = categories
        }
    }

    public var user: User
    public var device: Device
    /// Until when the data reaches.
    public var lastUpdatedDate: Date
    public var segmentInterval: DeviceActivityFilter.SegmentInterval
    public var activitySegments: DeviceActivityResults<ActivitySegment>

    public init(
        user: User, device: Device, lastUpdatedDate: Date, segmentInterval: DeviceActivityFilter.SegmentInterval,
        activitySegments: DeviceActivityResults<ActivitySegment>
    ) {
        self.user = user
        self.device = device
        self.lastUpdatedDate = lastUpdatedDate
        self.segmentInterval = segmentInterval
        self.activitySegments = activitySegments
    }
}

/// The results a report is given: an asynchronous sequence, as Apple's is, over
/// values computed before the extension started.
public struct DeviceActivityResults<Element: Sendable>: AsyncSequence, Sendable {
    public let elements: [Element]

    public init(_ elements: [Element]) { self.elements = elements }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: IndexingIterator<[Element]>
        public mutating func next() async -> Element? { base.next() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: elements.makeIterator()) }
}

extension DeviceActivityResults: Codable where Element: Codable {
    public init(from decoder: any Decoder) throws { elements = try [Element](from: decoder) }
    public func encode(to encoder: any Encoder) throws { try elements.encode(to: encoder) }
}
