import Foundation

/// A ZIP archive of stored (uncompressed) files: what an XPI and the inside of a CRX are.
/// Stored entries and a fixed date make the same files give the same bytes, so a package
/// built twice is the same package.
enum StoredZip {
    static func archive(_ files: [(name: String, contents: Data)]) -> Data {
        var archive = Data()
        var directory = Data()
        for file in files {
            let name = Data(file.name.utf8)
            let crc = CRC32.checksum(file.contents)
            let offset = UInt32(archive.count)
            // Local file header: version 2.0, no flags, stored, 1980-01-01 00:00.
            archive.append(le32: 0x0403_4b50)
            archive.append(le16: 20)
            archive.append(le16: 0)
            archive.append(le16: 0)
            archive.append(le16: 0)
            archive.append(le16: 0x0021)
            archive.append(le32: crc)
            archive.append(le32: UInt32(file.contents.count))
            archive.append(le32: UInt32(file.contents.count))
            archive.append(le16: UInt16(name.count))
            archive.append(le16: 0)
            archive.append(name)
            archive.append(file.contents)
            // Its entry in the central directory.
            directory.append(le32: 0x0201_4b50)
            directory.append(le16: 20)
            directory.append(le16: 20)
            directory.append(le16: 0)
            directory.append(le16: 0)
            directory.append(le16: 0)
            directory.append(le16: 0x0021)
            directory.append(le32: crc)
            directory.append(le32: UInt32(file.contents.count))
            directory.append(le32: UInt32(file.contents.count))
            directory.append(le16: UInt16(name.count))
            directory.append(le16: 0)  // extra
            directory.append(le16: 0)  // comment
            directory.append(le16: 0)  // disk
            directory.append(le16: 0)  // internal attributes
            directory.append(le32: 0o100644 << 16)  // external: a regular file, rw-r--r--
            directory.append(le32: offset)
            directory.append(name)
        }
        let directoryOffset = UInt32(archive.count)
        archive.append(directory)
        archive.append(le32: 0x0605_4b50)
        archive.append(le16: 0)
        archive.append(le16: 0)
        archive.append(le16: UInt16(files.count))
        archive.append(le16: UInt16(files.count))
        archive.append(le32: UInt32(directory.count))
        archive.append(le32: directoryOffset)
        archive.append(le16: 0)
        return archive
    }
}

/// CRC-32 (IEEE 802.3), as ZIP checks each file with.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func checksum(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data { crc = table[Int((crc ^ UInt32(byte)) & 0xff)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}

extension Data {
    mutating func append(le16 value: UInt16) {
        append(contentsOf: [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)])
    }

    mutating func append(le32 value: UInt32) {
        append(contentsOf: [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: value >> $0) })
    }
}
