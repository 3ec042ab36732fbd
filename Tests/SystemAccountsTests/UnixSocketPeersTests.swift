import Foundation
import Glibc
import SystemAccounts
import XCTest

/// The kernel's answer on whom a Unix socket is connected to, for real sockets of real
/// processes: a socket pair of the test's, and another process connected to a
/// listener of the test's.
final class UnixSocketPeersTests: XCTestCase {
    private func inode(of descriptor: Int32) throws -> UInt32 {
        let link = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")
        return try XCTUnwrap(UInt32(link.dropFirst("socket:[".count).dropLast()), link)
    }

    func testTheTwoEndsOfASocketPairAreEachOthersPeers() throws {
        var ends: [Int32] = [-1, -1]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends), 0)
        defer { ends.forEach { close($0) } }
        let (first, second) = (try inode(of: ends[0]), try inode(of: ends[1]))
        XCTAssertEqual(UnixSocketPeers.peer(of: first), second)
        XCTAssertEqual(UnixSocketPeers.peer(of: second), first)
        XCTAssertTrue(UnixSocketPeers.socketInodes(of: getpid()).isSuperset(of: [first, second]))
    }

    func testAListeningSocketHasNoPeerAndAConnectedClientIsFoundConnected() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("peers-\(UUID().uuidString).sock").path
        defer { unlink(path) }
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        XCTAssertEqual(bound, 0)
        XCTAssertEqual(listen(listener, 1), 0)
        XCTAssertNil(UnixSocketPeers.peer(of: try inode(of: listener)), "a listener is connected to nobody")

        // Another process connects: it is connected to this one, and this one is not to `sleep`.
        let client = Process()
        client.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        client.arguments = [
            "-c", "import socket, time; s = socket.socket(socket.AF_UNIX); s.connect('\(path)'); time.sleep(30)",
        ]
        try client.run()
        defer { client.terminate() }
        let accepted = accept(listener, nil, nil)
        XCTAssertGreaterThanOrEqual(accepted, 0)
        defer { close(accepted) }
        XCTAssertTrue(UnixSocketPeers.isConnected(client.processIdentifier, to: getpid()))
        let unrelated = Process()
        unrelated.executableURL = URL(fileURLWithPath: "/bin/sleep")
        unrelated.arguments = ["30"]
        try unrelated.run()
        defer { unrelated.terminate() }
        XCTAssertFalse(UnixSocketPeers.isConnected(client.processIdentifier, to: unrelated.processIdentifier))
    }
}
