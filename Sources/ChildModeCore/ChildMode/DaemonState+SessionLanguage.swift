import Foundation
import GRDB
import ScreenwardBasics
import ScreenwardIPC

/// The language each managed user's session speaks, as their session's tray last said: kept
/// with the managed user, so that the daemon notifies them in it (and starts their agents in
/// it) from the start of the next session, before the tray has spoken.
extension DaemonState {
    static func registerSessionLanguageMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v3: the language of each managed user's session") { db in
            try db.execute(sql: "ALTER TABLE managedUser ADD COLUMN sessionLanguage TEXT")
        }
    }

    /// Records that `uid`'s session speaks `language`; says whether that is news.
    public func recordSessionLanguage(_ language: String, uid: UInt32) throws -> Bool {
        guard Translations.isLanguageCode(language) else { throw DaemonStateError.notALanguage(language) }
        return try database.write { db in
            try db.execute(
                sql: """
                    UPDATE managedUser SET sessionLanguage = ?
                    WHERE uid = ? AND sessionLanguage IS NOT ?
                    """,
                arguments: [language, uid, language])
            return db.changesCount > 0
        }
    }

    /// The language `uid`'s session last said it speaks; nil if it never has (or the user is
    /// not managed).
    public func sessionLanguage(uid: UInt32) throws -> String? {
        try database.read { db in
            try String.fetchOne(db, sql: "SELECT sessionLanguage FROM managedUser WHERE uid = ?", arguments: [uid])
        }
    }

    /// The language to speak to `uid` in: their session's, English before it has said (or
    /// when the database cannot be read: a text is never held back for want of a language).
    public func languageToSpeak(uid: UInt32) -> String {
        ((try? sessionLanguage(uid: uid)) ?? nil) ?? "en"
    }
}

extension ChildModeService {
    /// How often a managed user's session may change its language: a child who asks in a loop
    /// would otherwise have the daemon write its database and redraw their shields without end.
    static let languageChangeInterval: TimeInterval = 5

    /// A managed user's session says which language it speaks.
    func sessionSpeaks(_ language: String, caller: Caller) throws {
        guard caller.role == .managed else {
            throw ServiceError(
                .unauthorized, Phrase("only a managed user's session says which language it speaks", context: "daemon"))
        }
        guard Translations.isLanguageCode(language) else { throw DaemonStateError.notALanguage(language) }
        let uid = caller.account.uid
        guard try state.sessionLanguage(uid: uid) != language else { return }
        if let last = languageChanges[uid], now().timeIntervalSince(last) < Self.languageChangeInterval {
            throw ServiceError(
                .invalidArgument,
                Phrase(
                    "the session's language changed less than {seconds} s ago: try again later", context: "daemon",
                    ["seconds": String(Int(Self.languageChangeInterval))]))
        }
        languageChanges[uid] = now()
        if try state.recordSessionLanguage(language, uid: uid) { onSessionLanguageChanged?(uid, language) }
    }
}
