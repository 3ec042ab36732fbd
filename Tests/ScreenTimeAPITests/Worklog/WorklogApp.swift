// The rest of Worklog, without SwiftUI: what the app does on launch and when Aniyah
// taps "Allow for Evenings" (narrated in the talk, not shown as code).
import DeviceActivity
import FamilyControls
import Foundation
import ManagedSettings
import Synchronization

extension ManagedSettingsStore.Name {
    static let social = Self("social")
    static let gaming = Self("gaming")
}

extension DeviceActivityName {
    static let evenings = Self("evenings")
}

/// The app's own storage: the categories Aniyah picked (kept as a Codable selection).
final class BarkDatabase {
    static let saved = Mutex<FamilyActivitySelection?>(nil)
    static let savedGaming = Mutex<FamilyActivitySelection?>(nil)

    var socialCategoryToken: ActivityCategoryToken { Self.saved.withLock { $0!.categoryTokens.first! } }
    var gamingCategoryToken: ActivityCategoryToken { Self.savedGaming.withLock { $0!.categoryTokens.first! } }
}

enum Worklog {
    // APP: Request Authorization
    static func launch() async {
        let center = AuthorizationCenter.shared
        do {
            try await center.requestAuthorization(for: .individual)
        } catch {
            print("Failed to enroll Aniyah with error: \(error)")
        }
    }

    /// First launch after authorization: gaming is shielded for good, social until
    /// Aniyah allows it in the evenings.
    static func createStores(database: BarkDatabase) {
        let gaming = ManagedSettingsStore(named: .gaming)
        gaming.shield.applicationCategories = .specific([database.gamingCategoryToken])
        gaming.shield.webDomainCategories = .specific([database.gamingCategoryToken])
        let social = ManagedSettingsStore(named: .social)
        social.shield.applicationCategories = .specific([database.socialCategoryToken])
        social.shield.webDomainCategories = .specific([database.socialCategoryToken])
    }

    /// "Allow for Evenings": social media between 5:00 and 8:00 p.m.
    static func allowForEvenings() throws {
        let schedule = DeviceActivitySchedule(
            intervalStart: DateComponents(hour: 17, minute: 0), intervalEnd: DateComponents(hour: 20, minute: 0), repeats: true)
        try DeviceActivityCenter().startMonitoring(.evenings, during: schedule)
    }
}
