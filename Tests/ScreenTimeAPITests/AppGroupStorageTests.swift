@_spi(Screenward) import FamilyControls
import Foundation
@_spi(Screenward) import ManagedSettings
import ScreenwardCore
import ScreenwardIPC
import XCTest

/// What an app shares with its extensions, kept by the owner: per app, bounded, and
/// only for an authorised app.
final class AppGroupStorageTests: XCTestCase {
    func testAValueWrittenIsReadBackAndRemoved() async throws {
        let world = try InProcessWorld(test: self)
        world.use("org.example.homework")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let storage = AppGroupStorage.shared
        XCTAssertNil(try storage.data(forKey: "model"))
        try storage.set(Data("chosen".utf8), forKey: "model")
        XCTAssertEqual(try storage.data(forKey: "model"), Data("chosen".utf8))
        try storage.set(Data("again".utf8), forKey: "model")
        XCTAssertEqual(try storage.data(forKey: "model"), Data("again".utf8))
        try storage.set(nil, forKey: "model")
        XCTAssertNil(try storage.data(forKey: "model"))
    }

    func testEachAppSeesOnlyItsOwnValues() async throws {
        let world = try InProcessWorld(test: self)
        world.use("org.example.one")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        try AppGroupStorage.shared.set(Data("one's".utf8), forKey: "model")
        world.use("org.example.two")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        XCTAssertNil(try AppGroupStorage.shared.data(forKey: "model"))
    }

    func testAnAppThatIsNotAuthorisedKeepsNothing() throws {
        let world = try InProcessWorld(test: self)
        world.use("org.example.stranger")
        XCTAssertThrowsError(try AppGroupStorage.shared.set(Data("x".utf8), forKey: "model")) { error in
            XCTAssertEqual((error as? ServiceError)?.code, .unauthorized)
        }
    }

    func testTheLimitsAreEnforced() async throws {
        let world = try InProcessWorld(test: self)
        world.use("org.example.hoarder")
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
        let storage = AppGroupStorage.shared
        XCTAssertThrowsError(try storage.set(Data(count: AppGroupStorage.maximumValueBytes + 1), forKey: "big")) {
            error in
            XCTAssertEqual((error as? ServiceError)?.code, .limitExceeded)
        }
        XCTAssertThrowsError(try storage.set(Data("x".utf8), forKey: "")) { error in
            XCTAssertEqual((error as? ServiceError)?.code, .invalidArgument)
        }
        for index in 0..<AppGroupStorage.maximumKeys {
            try storage.set(Data([UInt8(index % 256)]), forKey: "key \(index)")
        }
        XCTAssertThrowsError(try storage.set(Data("one more".utf8), forKey: "key \(AppGroupStorage.maximumKeys)")) {
            error in
            XCTAssertEqual((error as? ServiceError)?.code, .limitExceeded)
        }
        // Replacing an existing key is still allowed at the limit.
        try storage.set(Data("replaced".utf8), forKey: "key 0")
        XCTAssertEqual(try storage.data(forKey: "key 0"), Data("replaced".utf8))
    }
}
