import ScreenwardIPC

/// SQLite's write-ahead log (the ledger's `-wal` file), read from its bytes before
/// SQLite opens it (format: https://www.sqlite.org/fileformat2.html#walformat).
///
/// SQLite trusts a WAL only up to its first frame that fails its checksum and
/// silently drops everything after it; the next checkpoint then rewrites the
/// database without those transactions and deletes the log. After a crash that
/// is right: the tail is a transaction cut short. A frame that fails *before* a
/// transaction that was committed whole is damage instead, and opening the ledger
/// would destroy committed data, so it must be seen first.
struct WriteAheadLog {
    static let headerSize = 32
    static let frameHeaderSize = 24
    private static let magicLittleEndian: UInt32 = 0x377f_0682
    private static let magicBigEndian: UInt32 = 0x377f_0683
    private static let formatVersion: UInt32 = 3_007_000

    private let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// What is wrong with the log, as a phrase; nil when SQLite would lose nothing
    /// that was committed (an empty log, a torn tail, frames of an older generation).
    var damage: Phrase? {
        // Shorter than a header: the first commit was cut short, nothing was committed.
        guard bytes.count >= Self.headerSize else { return nil }
        let magic = word(at: 0)
        guard magic == Self.magicLittleEndian || magic == Self.magicBigEndian else {
            return Phrase("its write-ahead log (-wal) does not start with SQLite's WAL header", context: "service")
        }
        let bigEndian = magic == Self.magicBigEndian
        guard word(at: 4) == Self.formatVersion else {
            return Phrase(
                "its write-ahead log (-wal) has an unknown format version ({version})", context: "service",
                ["version": "\(word(at: 4))"])
        }
        let pageSize = Int(word(at: 8))
        guard (512...65536).contains(pageSize), pageSize & (pageSize - 1) == 0 else {
            return Phrase(
                "its write-ahead log (-wal) names an impossible page size ({size})", context: "service",
                ["size": "\(pageSize)"])
        }
        let headerChecksum = checksum(0..<24, seed: (0, 0), bigEndian: bigEndian)
        guard headerChecksum == (word(at: 24), word(at: 28)) else {
            return Phrase("the header of its write-ahead log (-wal) fails its checksum", context: "service")
        }
        let salts = (word(at: 16), word(at: 20))
        let frameSize = Self.frameHeaderSize + pageSize
        let frames = (bytes.count - Self.headerSize) / frameSize

        // Each frame's checksum continues the previous frame's, so a later frame can
        // be checked against the checksum its damaged predecessor claims.
        var seed = headerChecksum
        var firstBad: Int?
        for index in 0..<frames {
            let start = Self.headerSize + index * frameSize
            let stored = (word(at: start + 16), word(at: start + 20))
            let sameGeneration = word(at: start + 8) == salts.0 && word(at: start + 12) == salts.1
            let partial = checksum(start..<(start + 8), seed: seed, bigEndian: bigEndian)
            let computed = checksum(
                (start + Self.frameHeaderSize)..<(start + frameSize), seed: partial, bigEndian: bigEndian)
            let valid = sameGeneration && computed == stored
            let commits = word(at: start + 4) != 0
            if let bad = firstBad {
                if valid && commits {
                    // swift-format-ignore
                    return Phrase("frame {bad} of its write-ahead log (-wal) is damaged, and a transaction committed after it (ending at frame {end} of {frames}) would be lost", context: "service", ["bad": "\(bad + 1)", "end": "\(index + 1)", "frames": "\(frames)"])
                }
            } else if !valid {
                firstBad = index
            }
            seed = stored
        }
        return nil
    }

    /// A big-endian 32-bit word (every header field is stored so).
    private func word(at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            | UInt32(bytes[offset + 3])
    }

    /// SQLite's WAL checksum over `range` (a multiple of 8 bytes), continuing `seed`;
    /// words are read in the byte order the log's magic number names.
    private func checksum(_ range: Range<Int>, seed: (UInt32, UInt32), bigEndian: Bool) -> (UInt32, UInt32) {
        var (s0, s1) = seed
        var offset = range.lowerBound
        while offset < range.upperBound {
            let first = bigEndian ? word(at: offset) : littleEndianWord(at: offset)
            let second = bigEndian ? word(at: offset + 4) : littleEndianWord(at: offset + 4)
            s0 = s0 &+ first &+ s1
            s1 = s1 &+ second &+ s0
            offset += 8
        }
        return (s0, s1)
    }

    private func littleEndianWord(at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(
            bytes[offset + 3]) << 24
    }
}
