import Foundation

/// Usage over a range cut into calendar segments (hours, days or weeks in the
/// system's time zone), per category and per application, with pickups and the
/// longest stretch of use: what `screenward report` draws, and what a report
/// extension is given (with its app's tokens instead of ledger tokens).
///
/// Segments are clipped to the range, so their totals add up to the ledger's total
/// for the same range (`Ledger.usage(since:until:)`).
public struct ActivityReport: Codable, Sendable, Equatable {
    public enum Segmentation: String, Codable, Sendable, CaseIterable {
        case hourly, daily, weekly
    }

    /// An application that has use in the report.
    public struct Application: Codable, Sendable, Equatable {
        /// The desktop id, or `wmclass:<class>` (as `screenward usage` prints it).
        public var id: String
        public var name: String
        /// The ledger's token for it (device-wide; never given to an app as is).
        public var token: String
        /// The icon its desktop entry names, if any.
        public var iconName: String?
        /// The activity category (an id of data/categories.json).
        public var category: String

        public init(id: String, name: String, token: String, iconName: String?, category: String) {
            self.id = id
            self.name = name
            self.token = token
            self.iconName = iconName
            self.category = category
        }
    }

    /// One application's use within a segment.
    public struct ApplicationUse: Codable, Sendable, Equatable {
        /// Its id in `applications`.
        public var application: String
        public var seconds: Double
        /// Pickups that began with this application.
        public var pickups: Int

        public init(application: String, seconds: Double, pickups: Int) {
            self.application = application
            self.seconds = seconds
            self.pickups = pickups
        }
    }

    /// A website's time within a segment (part of its browser's).
    public struct WebsiteUse: Codable, Sendable, Equatable {
        /// The registrable domain, in ASCII.
        public var domain: String
        public var seconds: Double

        public init(domain: String, seconds: Double) {
            self.domain = domain
            self.seconds = seconds
        }
    }

    public struct Segment: Codable, Sendable, Equatable {
        public var start: Date
        public var end: Date
        public var totalSeconds: Double
        /// Pickups that began in this segment (see `ActivityReportBuilder`).
        public var pickups: Int
        public var firstPickup: Date?
        /// The longest stretch of continuous use within the segment.
        public var longestActivity: DateInterval?
        /// Most used first.
        public var applications: [ApplicationUse]
        /// The websites the included browsers showed, most used first.
        public var websites: [WebsiteUse]

        public init(
            start: Date, end: Date, totalSeconds: Double, pickups: Int, firstPickup: Date?,
            longestActivity: DateInterval?,
            applications: [ApplicationUse], websites: [WebsiteUse] = []
        ) {
            self.start = start
            self.end = end
            self.totalSeconds = totalSeconds
            self.pickups = pickups
            self.firstPickup = firstPickup
            self.longestActivity = longestActivity
            self.applications = applications
            self.websites = websites
        }

        enum CodingKeys: String, CodingKey {
            case start, end, totalSeconds, pickups, firstPickup, longestActivity, applications, websites
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            start = try container.decode(Date.self, forKey: .start)
            end = try container.decode(Date.self, forKey: .end)
            totalSeconds = try container.decode(Double.self, forKey: .totalSeconds)
            pickups = try container.decode(Int.self, forKey: .pickups)
            firstPickup = try container.decodeIfPresent(Date.self, forKey: .firstPickup)
            longestActivity = try container.decodeIfPresent(DateInterval.self, forKey: .longestActivity)
            applications = try container.decode([ApplicationUse].self, forKey: .applications)
            websites = try container.decodeIfPresent([WebsiteUse].self, forKey: .websites) ?? []
        }
    }

    /// A managed person's time on another computer of their household in the report's range
    /// (docs/household.md), as this computer last read it.
    public struct ComputerTime: Codable, Sendable, Equatable {
        /// The name the household knows the computer by.
        public var name: String
        public var seconds: Double
        /// Its applications' names, most used first.
        public var mostUsed: [String]

        public init(name: String, seconds: Double, mostUsed: [String]) {
            self.name = name
            self.seconds = seconds
            self.mostUsed = mostUsed
        }
    }

    public var segmentation: Segmentation
    /// The household's other computers (nil: none, or a report of one's own).
    public var elsewhere: [ComputerTime]?
    public var since: Date
    public var until: Date
    /// The time zone the segments follow (an identifier such as Europe/Berlin).
    public var timeZone: String
    /// Until when the ledger's data reaches (now, for a live session).
    public var lastUpdated: Date
    /// Every application with use in some segment, by id.
    public var applications: [Application]
    public var segments: [Segment]

    public init(
        segmentation: Segmentation, since: Date, until: Date, timeZone: String, lastUpdated: Date,
        applications: [Application],
        segments: [Segment]
    ) {
        self.segmentation = segmentation
        self.since = since
        self.until = until
        self.timeZone = timeZone
        self.lastUpdated = lastUpdated
        self.applications = applications
        self.segments = segments
    }

    public var totalSeconds: Double { segments.reduce(0) { $0 + $1.totalSeconds } }

    public func application(_ id: String) -> Application? { applications.first { $0.id == id } }

    /// Seconds per application over every segment, most used first.
    public var secondsByApplication: [(application: Application, seconds: Double)] {
        var totals: [String: Double] = [:]
        for segment in segments {
            for use in segment.applications { totals[use.application, default: 0] += use.seconds }
        }
        return applications.compactMap { app in totals[app.id].map { (app, $0) } }
            .sorted { $0.seconds != $1.seconds ? $0.seconds > $1.seconds : $0.application.name < $1.application.name }
    }

    /// Seconds per website over every segment, most used first.
    public var secondsByWebsite: [(domain: String, seconds: Double)] {
        var totals: [String: Double] = [:]
        for segment in segments {
            for use in segment.websites { totals[use.domain, default: 0] += use.seconds }
        }
        return totals.map { ($0.key, $0.value) }.sorted {
            $0.seconds != $1.seconds ? $0.seconds > $1.seconds : $0.domain < $1.domain
        }
    }

    /// Seconds per category id over every segment, most used first.
    public var secondsByCategory: [(category: String, seconds: Double)] {
        var totals: [String: Double] = [:]
        for (app, seconds) in secondsByApplication { totals[app.category, default: 0] += seconds }
        return totals.map { ($0.key, $0.value) }.sorted {
            $0.seconds != $1.seconds ? $0.seconds > $1.seconds : $0.category < $1.category
        }
    }
}

/// What to include in a report: applications by id and categories by id (an
/// application is included when it is named or its category is); nothing named
/// means everything.
public struct ActivityReportFilter: Codable, Sendable, Equatable {
    public var applications: Set<String>
    public var categories: Set<String>
    /// Websites (registrable domains): their time in any browser is included, and only
    /// they are listed as websites.
    public var websites: Set<String>

    public init(applications: Set<String> = [], categories: Set<String> = [], websites: Set<String> = []) {
        self.applications = applications
        self.categories = categories
        self.websites = websites
    }

    public var includesEverything: Bool { applications.isEmpty && categories.isEmpty && websites.isEmpty }

    public func includes(_ application: ActivityReport.Application) -> Bool {
        includesEverything || applications.contains(application.id) || categories.contains(application.category)
    }

    /// Whether a use on `website` counts for it (without a website named, every one does).
    public func lists(website: String) -> Bool {
        websites.isEmpty || websites.contains(website)
    }

    // Filters stored before websites came have none.
    enum CodingKeys: String, CodingKey { case applications, categories, websites }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        applications = try container.decode(Set<String>.self, forKey: .applications)
        categories = try container.decode(Set<String>.self, forKey: .categories)
        websites = try container.decodeIfPresent(Set<String>.self, forKey: .websites) ?? []
    }
}
