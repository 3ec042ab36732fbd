import Foundation
import XCTest

extension XCTestCase {
    /// A fresh directory, removed when the test ends.
    func makeTemporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("screenward-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    /// Writes `data` at `path` under `directory`, creating the folders in between.
    @discardableResult
    func write(_ data: Data, _ path: String, in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent(path)
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
        return url
    }

    @discardableResult
    func write(_ text: String, _ path: String, in directory: URL) throws -> URL {
        try write(Data(text.utf8), path, in: directory)
    }

    /// A minimal valid application entry.
    func appEntry(name: String, extra: String = "") -> String {
        "[Desktop Entry]\nType=Application\nName=\(name)\n\(extra)"
    }
}
