import Foundation
import ManagedSettingsUI
import TestSupport
import XCTest

@testable import ScreenTimePolicy
@testable import ScreenwardCore

/// The shield's icon as the browsers' shield page gets it: the image itself, found as GTK
/// finds an icon-theme icon, and only when it is an image of a sendable size.
final class ShieldIconImagesTests: XCTestCase {
    var data: URL!
    let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(repeating: 7, count: 40)
    let svg = Data("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>\n".utf8)

    override func setUpWithError() throws {
        data = try makeTemporaryDirectory()
    }

    func put(_ bytes: Data, at path: String) throws {
        let url = data.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try bytes.write(to: url)
    }

    var images: ShieldIconImages { ShieldIconImages(dataDirectories: [data.path + "/home", data.path + "/share"]) }

    func testAThemedIconIsFoundScalableFirstThenTheLargestInAdwaitaThenHicolor() throws {
        try put(png, at: "share/icons/hicolor/256x256/apps/clock.png")
        XCTAssertEqual(images.file(forIconNamed: "clock"), data.path + "/share/icons/hicolor/256x256/apps/clock.png")
        try put(png, at: "share/icons/Adwaita/48x48/legacy/clock.png")
        XCTAssertEqual(
            images.file(forIconNamed: "clock"), data.path + "/share/icons/Adwaita/48x48/legacy/clock.png",
            "Adwaita before hicolor")
        try put(png, at: "share/icons/Adwaita/96x96/status/clock.png")
        XCTAssertEqual(
            images.file(forIconNamed: "clock"), data.path + "/share/icons/Adwaita/96x96/status/clock.png", "the larger")
        try put(svg, at: "share/icons/Adwaita/scalable/apps/clock.svg")
        XCTAssertEqual(
            images.file(forIconNamed: "clock"), data.path + "/share/icons/Adwaita/scalable/apps/clock.svg",
            "scalable first")
        try put(svg, at: "home/icons/Adwaita/scalable/apps/clock.svg")
        XCTAssertEqual(
            images.file(forIconNamed: "clock"), data.path + "/home/icons/Adwaita/scalable/apps/clock.svg",
            "the person's data first")
        try put(png, at: "share/pixmaps/old-app.png")
        XCTAssertEqual(images.file(forIconNamed: "old-app"), data.path + "/share/pixmaps/old-app.png")
        XCTAssertNil(images.file(forIconNamed: "missing"))
        for name in ["../../../etc/passwd", "apps/clock", ".hidden", ""] {
            XCTAssertNil(images.file(forIconNamed: name), "\(name) is no icon name")
        }
    }

    func testTheImageGoesAsADataURLWithItsType() throws {
        try put(svg, at: "share/icons/hicolor/scalable/apps/clock.svg")
        XCTAssertEqual(
            images.dataURL(for: .themed(name: "clock")), "data:image/svg+xml;base64," + svg.base64EncodedString())
        try put(png, at: "file.png")
        XCTAssertEqual(
            images.dataURL(for: .file(path: data.path + "/file.png")),
            "data:image/png;base64," + png.base64EncodedString())
        for (bytes, type) in [
            (Data([0xFF, 0xD8, 0xFF, 0xE0, 1, 2]), "image/jpeg"), (Data("GIF89a..".utf8), "image/gif"),
            (Data("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8), "image/webp"), (Data("\n  <svg/>".utf8), "image/svg+xml"),
        ] {
            XCTAssertEqual(ShieldIconImages.imageType(of: bytes), type)
        }
    }

    /// The daemon reads as root what an app's configuration names: only images, only so big.
    func testWhatIsNoImageOrTooLargeOrRelativeIsNotSent() throws {
        try put(Data("root:x:0:0:root:/root:/bin/bash\n".utf8), at: "passwd")
        XCTAssertNil(images.dataURL(for: .file(path: data.path + "/passwd")))
        try put(png + Data(repeating: 0, count: ShieldIconImages.maximumBytes), at: "huge.png")
        XCTAssertNil(images.dataURL(for: .file(path: data.path + "/huge.png")))
        XCTAssertNil(images.dataURL(for: .file(path: "relative/icon.png")))
        XCTAssertNil(images.dataURL(for: .file(path: data.path + "/nothing-here.png")))
        XCTAssertNil(images.dataURL(for: .file(path: data.path)), "a folder")
        XCTAssertNil(images.dataURL(for: .themed(name: "missing")))
    }
}
