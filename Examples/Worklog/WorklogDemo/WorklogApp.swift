// The rest of Worklog, without SwiftUI: what the app does on launch and when Aniyah
// taps "Allow for Evenings" (narrated in the talk, not shown as code).
import DeviceActivity
import FamilyControls
import Foundation
import ManagedSettings
import Synchronization

extension ManagedSettingsStore.Name {
    public static let social = Self("social")
    public static let gaming = Self("gaming")
}

extension DeviceActivityName {
    public static let evenings = Self("evenings")
}

/// The app's own storage: the categories Aniyah picked, kept as Codable selections
/// (in a file of the app's, loaded at launch).
public final class BarkDatabase {
    public static let social = Mutex<FamilyActivitySelection?>(nil)
    public static let gaming = Mutex<FamilyActivitySelection?>(nil)

    public init() {}

    public var socialCategoryToken: ActivityCategoryToken { Self.token(Self.social, "social") }
    public var gamingCategoryToken: ActivityCategoryToken { Self.token(Self.gaming, "gaming") }

    private static func token(_ selection: borrowing Mutex<FamilyActivitySelection?>, _ what: String)
        -> ActivityCategoryToken
    {
        guard let token = selection.withLock({ $0?.categoryTokens.first }) else {
            fatalError("Worklog has no \(what) category picked yet")
        }
        return token
    }
}

public enum Worklog {
    // APP: Request Authorization
    public static func launch() async {
        let center = AuthorizationCenter.shared
        do {
            try await center.requestAuthorization(for: .individual)
        } catch {
            print("Failed to enroll Aniyah with error: \(error)")
        }
    }

    /// First launch after authorization: gaming is shielded for good, social until
    /// Aniyah allows it in the evenings.
    public static func createStores(database: BarkDatabase) {
        let gaming = ManagedSettingsStore(named: .gaming)
        gaming.shield.applicationCategories = .specific([database.gamingCategoryToken])
        gaming.shield.webDomainCategories = .specific([database.gamingCategoryToken])
        let social = ManagedSettingsStore(named: .social)
        social.shield.applicationCategories = .specific([database.socialCategoryToken])
        social.shield.webDomainCategories = .specific([database.socialCategoryToken])
    }

    /// "Allow for Evenings": social media between 5:00 and 8:00 p.m.
    public static func allowForEvenings(
        from start: DateComponents = DateComponents(hour: 17, minute: 0),
        until end: DateComponents = DateComponents(hour: 20, minute: 0)
    ) throws {
        let schedule = DeviceActivitySchedule(intervalStart: start, intervalEnd: end, repeats: true)
        try DeviceActivityCenter().startMonitoring(.evenings, during: schedule)
    }
}
