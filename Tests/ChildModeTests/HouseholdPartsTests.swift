import XCTest

@testable import Household

/// The household's parts that need no database: join codes as people type them, and the
/// schema's migrations split into statements.
final class HouseholdPartsTests: XCTestCase {
    func testAJoinCodeIsReadAsPeopleTypeItAndNamesItsServer() throws {
        let server = CertificateFingerprint(der: Array("a certificate".utf8))
        let code = JoinCode.make(certificate: server)
        XCTAssertEqual(code.description.count, 59)
        XCTAssertEqual(try JoinCode(parsing: code.description), code)
        XCTAssertEqual(
            try JoinCode(parsing: code.description.uppercased().replacingOccurrences(of: "-", with: " ")), code)
        let zeros = Array(repeating: "00000", count: 9).joined(separator: "-")
        let typed = try JoinCode(parsing: "oOiIl-" + zeros)
        XCTAssertEqual(typed.roleSuffix, "0011100000", "o is 0; i and l are 1")
        XCTAssertEqual(typed.role, "screenward_join_0011100000")
        XCTAssertThrowsError(try JoinCode(parsing: "abcde")) {
            XCTAssertTrue("\($0)".contains("has 50 letters and digits"), "\($0)")
        }
        XCTAssertThrowsError(try JoinCode(parsing: "uuuuu-" + zeros)) {
            XCTAssertTrue("\($0)".contains("\"u\" is not one"), "\($0)")
        }
        XCTAssertNotEqual(JoinCode.make(certificate: server), JoinCode.make(certificate: server))

        // The code names its server's certificate by the first 100 bits of its SHA-256.
        XCTAssertTrue(code.names(server))
        XCTAssertFalse(code.names(CertificateFingerprint(der: Array("another certificate".utf8))))
        XCTAssertEqual(
            CertificateFingerprint(der: Array("abc".utf8)).hex,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        // Its first 100 bits, five at a time, in the codes' alphabet (worked out apart, in Python).
        XCTAssertEqual(CertificateFingerprint(der: Array("abc".utf8)).codePart, "q9w1dfwf077ymga183f5")
    }

    func testAMigrationSplitsAtStatementsNotInsideFunctionBodies() {
        let migration = HouseholdSchema.Migration(
            name: "test",
            sql: """
                -- a comment; with a semicolon;
                CREATE TABLE a (x int);
                CREATE FUNCTION f() RETURNS void LANGUAGE plpgsql AS $$
                BEGIN
                  PERFORM 1;
                END $$;
                GRANT SELECT ON a
                  TO b;
                """)
        XCTAssertEqual(migration.statements.count, 3)
        XCTAssertTrue(
            migration.statements[1].hasPrefix("CREATE FUNCTION") && migration.statements[1].hasSuffix("END $$;"))
        XCTAssertEqual(migration.statements[2], "GRANT SELECT ON a\n  TO b;")
        for shipped in HouseholdSchema.migrations {
            XCTAssertTrue(shipped.statements.allSatisfy { $0.hasSuffix(";") }, shipped.name)
        }
    }
}
