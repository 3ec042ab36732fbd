import Foundation
import GRDB
import ScreenwardIPC

/// Each event's detail as a phrase beside its English, so that `screenward child events`
/// shows it in the guardian's language.
extension DaemonState {
    static func registerEventPhraseMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v4: each event's detail as a phrase") { db in
            try db.execute(sql: "ALTER TABLE childEvent ADD COLUMN phrase TEXT")
        }
    }

    /// The phrase as the column keeps it: JSON, or NULL.
    static func phraseColumn(_ phrase: Phrase?) -> String? {
        guard let phrase, let json = try? JSONEncoder().encode(phrase) else { return nil }
        return String(decoding: json, as: UTF8.self)
    }

    /// An event as a row (`at`, `kind`, `actor`, `detail`, `phrase`) keeps it. A phrase that does
    /// not read (written by hand, or by a newer daemon) leaves the English detail, never the event.
    static func event(_ row: Row) -> ChildEvent {
        var event = ChildEvent(
            at: Date(timeIntervalSince1970: row["at"]), kind: ChildEvent.Kind(rawValue: row["kind"]),
            actor: row["actor"], detail: row["detail"])
        if let json: String = row["phrase"] {
            event.phrase = try? JSONDecoder().decode(Phrase.self, from: Data(json.utf8))
        }
        return event
    }
}
