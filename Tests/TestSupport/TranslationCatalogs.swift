import Foundation
import ScreenwardCore

/// The translations in the source tree's po/, compiled by gettext's own msgfmt (once per
/// process, into a folder of the tests'): what a test reads to check a catalog, independent of
/// what scripts/compile-translations.sh left in .build/locale for the programs.
public enum TranslationCatalogs {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The checkout's root (this file is Tests/TestSupport/TranslationCatalogs.swift).
    public static let sourceRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    private static let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
        "screenward-catalogs-\(UUID().uuidString)", isDirectory: true)

    /// `po/LANGUAGE.po` compiled with `msgfmt --check`, read as the programs read catalogs.
    public static func compiled(_ language: String) throws -> Translations {
        let mo = try compile(sourceRoot.appendingPathComponent("po/\(language).po"), language: language)
        return Translations(language: language, catalog: try MessageCatalog(contentsOf: mo))
    }

    /// Any `.po` file compiled into `LANGUAGE/LC_MESSAGES/screenward.mo` under the tests' folder.
    @discardableResult
    public static func compile(_ po: URL, language: String, into root: URL? = nil) throws -> URL {
        let directory = (root ?? folder).appendingPathComponent("\(language)/LC_MESSAGES", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let mo = directory.appendingPathComponent("\(Translations.domain).mo")
        let msgfmt = Process()
        msgfmt.executableURL = URL(fileURLWithPath: "/usr/bin/msgfmt")
        msgfmt.arguments = ["--check", "-o", mo.path, po.path]
        let errors = Pipe()
        msgfmt.standardError = errors
        try msgfmt.run()
        msgfmt.waitUntilExit()
        guard msgfmt.terminationStatus == 0 else {
            let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw Failure(description: "msgfmt refused \(po.path): \(said)")
        }
        return mo
    }
}
