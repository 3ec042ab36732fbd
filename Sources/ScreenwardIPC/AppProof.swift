import CAppProof
import Foundation
import Synchronization

/// How an app in a managed account shows the system daemon that a connection is its
/// own, made by the program the guardian installed, as it was installed.
///
/// Before the first line on a connection to the daemon, the app makes itself
/// non-dumpable and sends where a 32-byte secret sits in its memory and what it is. The
/// daemon (root) reads that address through `/proc/PID/mem` of the connection's peer,
/// and checks the process as it is at that moment (`ProcessVetting`). A process of the
/// child's cannot forge it: it cannot read the secret of a non-dumpable process, and
/// a connection made before an `exec` of the real app points at memory the new image
/// does not have.
///
/// A guardian's own copy of the app may act for a managed user (`actingFor`, from
/// `$SCREENWARD_MANAGED_USER`, which `screenward app run --user` sets): the daemon then
/// serves its requests as that user's app, and takes the guardian's word for what they
/// change, since it is the guardian who runs it.
public struct AppProof: Sendable, Hashable, Codable {
    public var address: UInt64
    public var secret: [UInt8]
    /// The managed user this connection acts for; nil: the caller's own account.
    public var actingFor: String?

    public init(address: UInt64, secret: [UInt8], actingFor: String? = nil) {
        self.address = address
        self.secret = secret
        self.actingFor = actingFor
    }

    /// The environment variable naming the managed user an app acts for.
    public static let managedUserVariable = "SCREENWARD_MANAGED_USER"

    public static let secretLength = 32

    /// The first line on every connection an app makes to the daemon.
    public static let push = PushKind<AppProof>("app.proof")

    private static let preparation = Mutex<AppProof?>(nil)

    /// This process's proof, making the process non-dumpable the first time.
    public static func ofThisProcess() throws -> AppProof {
        try preparation.withLock { prepared in
            if let prepared { return prepared }
            guard screenward_app_proof_prepare() == 0 else {
                throw ServiceError(
                    .internalFailure,
                    Phrase(
                        "could not make this process non-dumpable for the system daemon (errno {errno})",
                        context: "connection", ["errno": "\(errno)"]))
            }
            let proof = AppProof(
                address: screenward_app_proof_address(),
                secret: (0..<Int32(secretLength)).map { screenward_app_proof_byte($0) })
            prepared = proof
            return proof
        }
    }
}
