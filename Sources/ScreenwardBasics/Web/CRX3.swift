import Crypto
import Foundation
import _CryptoExtras

/// Chromium's package format, CRX3: a ZIP archive after a header that proves it was signed
/// by the extension's key. Chromium installs a CRX from an enterprise policy only when the
/// proof holds, and the extension's ID is derived from the key, so the same key makes the same
/// extension on every build.
///
/// Layout: `Cr24`, version 3 and the header's length (little-endian), the header (a
/// `CrxFileHeader` protocol buffer), the archive. The header holds the public key (DER
/// SubjectPublicKeyInfo) and an RSA PKCS#1 v1.5 SHA-256 signature over
/// `"CRX3 SignedData\0"`, the signed data's length, the signed data (a `SignedData` buffer
/// holding the ID's 16 bytes) and the archive.
enum CRX3 {
    /// The extension ID of a public key: the first 16 bytes of its SHA-256, each hex digit
    /// written `a` to `p`.
    static func extensionID(publicKeyDER: Data) -> String {
        String(
            SHA256.hash(data: publicKeyDER).prefix(16).flatMap { [$0 >> 4, $0 & 0xf] }.map {
                Character(Unicode.Scalar(UInt8(ascii: "a") + $0))
            })
    }

    static func package(archive: Data, key: _RSA.Signing.PrivateKey) throws -> Data {
        let publicKey = key.publicKey.derRepresentation
        let id = Data(SHA256.hash(data: publicKey).prefix(16))
        let signedData = Protobuf.field(1, id)
        var signed = Data("CRX3 SignedData\u{0}".utf8)
        signed.append(le32: UInt32(signedData.count))
        signed.append(signedData)
        signed.append(archive)
        let signature = try key.signature(for: signed, padding: .insecurePKCS1v1_5)
        let proof = Protobuf.field(1, publicKey) + Protobuf.field(2, signature.rawRepresentation)
        let header = Protobuf.field(2, proof) + Protobuf.field(10000, signedData)
        var crx = Data("Cr24".utf8)
        crx.append(le32: 3)
        crx.append(le32: UInt32(header.count))
        crx.append(header)
        crx.append(archive)
        return crx
    }
}

/// The little of the protocol-buffer encoding CRX3 needs: length-delimited fields.
enum Protobuf {
    static func field(_ number: Int, _ bytes: Data) -> Data {
        var encoded = varint(UInt64(number) << 3 | 2)
        encoded.append(varint(UInt64(bytes.count)))
        encoded.append(bytes)
        return encoded
    }

    static func varint(_ value: UInt64) -> Data {
        var value = value
        var bytes = Data()
        repeat {
            let low = UInt8(value & 0x7f)
            value >>= 7
            bytes.append(value == 0 ? low : low | 0x80)
        } while value != 0
        return bytes
    }
}
